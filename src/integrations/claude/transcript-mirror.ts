import type { Waypoint } from '../../engine/index.js';
import type { JsonValue, PartContent } from '../../model/index.js';
import { mirroredMessageId } from './claude-ids.js';
import type { HookState } from '../hook-state.js';
import { keptResultText, mirrorTranscriptLines } from '../mirror-lines.js';

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
 * from the entry's uuid (kept in its metadata too), so an entry is never mirrored twice.
 */
export function mirrorTranscript(
  waypoint: Waypoint,
  sessionId: string,
  state: HookState,
  transcriptPath: string | undefined,
  turnId: string | null,
): Promise<number> {
  return mirrorTranscriptLines(waypoint, sessionId, state, transcriptPath, (line) => {
    const entry = line as TranscriptEntry;
    const message = entry.uuid === undefined ? null : toMessage(entry, state);
    if (message === null) return null;
    return {
      id: mirroredMessageId(sessionId, entry.uuid!),
      ...message,
      turnId,
      metadata: { claudeUuid: entry.uuid!, ...(entry.parentUuid ? { claudeParentUuid: entry.parentUuid } : {}) },
    };
  });
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
  return keptResultText(text);
}

function isReminder(text: string): boolean {
  return text.trimStart().startsWith('<system-reminder>');
}
