import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Waypoint } from '../engine/index.js';
import type { JsonObject, PartContent } from '../model/index.js';
import type { HookState } from './hook-state.js';

/** A tool result longer than this is kept cut (the agent's transcript keeps it whole). */
const MAX_RESULT_CHARS = 20_000;

/** One message an agent's transcript line becomes, with the id that makes mirroring it twice a no-op. */
export interface MirroredMessage {
  /** Derived from the line's own id in the transcript, so the same line always gets the same id. */
  id: string;
  role: 'assistant' | 'tool';
  kind: 'reply' | 'tool_result';
  parts: PartContent[];
  turnId: string | null;
  metadata: JsonObject;
}

/**
 * Mirrors an agent's transcript (a JSONL file the agent appends to: Claude Code's transcript,
 * Codex's rollout) into the session: the complete lines after `state.transcriptOffset` are parsed
 * and each is turned into a message by the agent's own `toMessage` (null: a line that is not part
 * of the conversation). A message whose id is already in the store is skipped, so a line is never
 * mirrored twice, even when the state that says how far the mirror got was lost. Returns how many
 * messages were appended.
 */
export async function mirrorTranscriptLines(
  waypoint: Waypoint,
  sessionId: string,
  state: HookState,
  transcriptPath: string | null | undefined,
  toMessage: (line: unknown) => MirroredMessage | null,
): Promise<number> {
  if (transcriptPath === undefined || transcriptPath === null || transcriptPath === '') return 0;
  const { text, end } = readFrom(transcriptPath, state.transcriptOffset);
  let mirrored = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    const message = toMessage(parsed);
    if (message === null || (await waypoint.store.findMessage(message.id))) continue;
    await waypoint.store.appendMessage({ sessionId, ...message });
    mirrored++;
  }
  state.transcriptOffset = end;
  return mirrored;
}

/** A tool result's text as kept in the session: cut past {@link MAX_RESULT_CHARS}, saying so. */
export function keptResultText(text: string): string {
  return text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}\n[cut: ${text.length} characters in the transcript]` : text;
}

/** The complete lines after `offset` (a file that shrank, rewritten by the agent, is read from the start). */
function readFrom(path: string, offset: number): { text: string; end: number } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { text: '', end: offset };
  }
  try {
    const size = fstatSync(fd).size;
    const start = size < offset ? 0 : offset;
    const buffer = Buffer.alloc(size - start);
    let read = 0;
    while (read < buffer.length) {
      const count = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (count === 0) break;
      read += count;
    }
    const lastNewline = buffer.lastIndexOf(0x0a, read - 1);
    if (lastNewline < 0) return { text: '', end: start };
    return { text: buffer.subarray(0, lastNewline + 1).toString('utf8'), end: start + lastNewline + 1 };
  } finally {
    closeSync(fd);
  }
}
