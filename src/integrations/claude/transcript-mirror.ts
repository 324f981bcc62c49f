import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Waypoint } from '../../engine/index.js';
import type { JsonValue, PartContent } from '../../model/index.js';
import { mirroredMessageId } from './claude-ids.js';
import type { HookState } from '../hook-state.js';

/** A tool result longer than this is kept cut (the transcript keeps it whole). */
const MAX_RESULT_CHARS = 20_000;

interface TranscriptEntry {
  type?: string;
  uuid?: string;
  parentUuid?: string | null;
  isMeta?: boolean;
  isSidechain?: boolean;
  promptId?: string;
  message?: { role?: string; content?: unknown };
}

/**
 * Mirrors the transcript's new entries into the session: Claude's replies (text, thinking, tool
 * calls) and the tool results, each as one message of the turn running now. A person's prompt is
 * already the turn's input, recorded from UserPromptSubmit; meta entries, attachments, system
 * reminders and Claude's own bookkeeping lines are left out. Each mirrored message's id derives
 * from the entry's uuid (kept in its metadata too), so an entry is never mirrored twice, even
 * when the state that says how far the mirror got was lost. Only complete lines are read.
 */
export async function mirrorTranscript(
  waypoint: Waypoint,
  sessionId: string,
  state: HookState,
  transcriptPath: string | undefined,
  turnId: string | null,
): Promise<number> {
  if (transcriptPath === undefined) return 0;
  const { text, end } = readFrom(transcriptPath, state.transcriptOffset);
  let mirrored = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let entry: TranscriptEntry;
    try {
      entry = JSON.parse(line) as TranscriptEntry;
    } catch {
      continue;
    }
    const message = toMessage(entry, state);
    if (message === null || entry.uuid === undefined) continue;
    const id = mirroredMessageId(sessionId, entry.uuid);
    if (await waypoint.store.findMessage(id)) continue;
    await waypoint.store.appendMessage({
      sessionId,
      id,
      ...message,
      turnId,
      metadata: { claudeUuid: entry.uuid, ...(entry.parentUuid ? { claudeParentUuid: entry.parentUuid } : {}) },
    });
    mirrored++;
  }
  state.transcriptOffset = end;
  return mirrored;
}

function toMessage(entry: TranscriptEntry, state: HookState): { role: 'assistant' | 'tool'; kind: 'reply' | 'tool_result'; parts: PartContent[] } | null {
  if (entry.isMeta === true || entry.isSidechain === true || !entry.message) return null;
  const content = entry.message.content;
  if (entry.type === 'assistant' && Array.isArray(content)) {
    const parts: PartContent[] = [];
    for (const block of content as Array<Record<string, unknown>>) {
      if (block.type === 'text' && typeof block.text === 'string' && block.text !== '' && !isReminder(block.text))
        parts.push({ type: 'text', text: block.text });
      else if (block.type === 'thinking' && typeof block.thinking === 'string' && block.thinking !== '')
        parts.push({ type: 'reasoning', text: block.thinking });
      else if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
        state.toolNames[block.id] = block.name;
        parts.push({ type: 'tool-call', toolCallId: block.id, toolName: block.name, input: (block.input ?? {}) as JsonValue });
      }
    }
    return parts.length > 0 ? { role: 'assistant', kind: 'reply', parts } : null;
  }
  if (entry.type === 'user' && Array.isArray(content)) {
    const parts: PartContent[] = [];
    for (const block of content as Array<Record<string, unknown>>) {
      if (block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
      const toolName = state.toolNames[block.tool_use_id] ?? 'unknown';
      parts.push({ type: 'tool-result', toolCallId: block.tool_use_id, toolName, output: { type: 'text', value: resultText(block.content) } });
    }
    return parts.length > 0 ? { role: 'tool', kind: 'tool_result', parts } : null;
  }
  return null;
}

function resultText(content: unknown): string {
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((block) => (typeof block?.text === 'string' ? block.text : '')).join('\n')
        : JSON.stringify(content ?? '');
  return text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}\n[cut: ${text.length} characters in the transcript]` : text;
}

function isReminder(text: string): boolean {
  return text.trimStart().startsWith('<system-reminder>');
}

/** The complete lines after `offset` (a file that shrank, rewritten by Claude, is read from the start). */
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
