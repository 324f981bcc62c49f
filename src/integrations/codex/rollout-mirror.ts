import type { Waypoint } from '../../engine/index.js';
import type { JsonValue, PartContent } from '../../model/index.js';
import { derivedId } from '../agent-ids.js';
import type { HookState } from '../hook-state.js';
import { keptResultText, mirrorTranscriptLines, type MirroredMessage } from '../mirror-lines.js';

/** One line of a Codex rollout (`$CODEX_HOME/sessions/…/rollout-*.jsonl`): the conversation's items are `response_item`s. */
interface RolloutLine {
  type?: string;
  ordinal?: number;
  payload?: RolloutItem;
}

/** A Responses API item as Codex records it. */
interface RolloutItem {
  type?: string;
  id?: string;
  role?: string;
  call_id?: string;
  name?: string;
  content?: unknown;
  summary?: unknown;
  arguments?: unknown;
  input?: unknown;
  action?: unknown;
  output?: unknown;
  internal_chat_message_metadata_passthrough?: { turn_id?: unknown };
}

/**
 * Mirrors Codex's rollout (the `transcript_path` of its hook events) into the session: the
 * assistant's messages and reasoning summaries, its tool calls (`function_call` such as
 * `exec_command`, the freeform `apply_patch`, `local_shell_call`) and their outputs, each as one
 * message of the Waypoint turn recording the Codex turn the item names (else the turn running
 * now). A person's prompt is already the turn's input; Codex's developer and context messages
 * (instructions, `<environment_context>`) and its bookkeeping lines (events, token counts) are
 * left out, and so is an item of a Codex turn Waypoint never recorded (hooks installed later).
 * A reply already recorded from the Stop event (`state.stopReplies`) is not mirrored again.
 */
export function mirrorRollout(
  waypoint: Waypoint,
  sessionId: string,
  state: HookState,
  rolloutPath: string | null | undefined,
  runningTurnId: string | null,
): Promise<number> {
  return mirrorTranscriptLines(waypoint, sessionId, state, rolloutPath, (line) => {
    const { type, payload: item, ordinal } = line as RolloutLine;
    if (type !== 'response_item' || item === undefined || item === null || typeof item !== 'object') return null;
    const key = item.id ?? item.call_id ?? (typeof ordinal === 'number' ? `line-${ordinal}` : undefined);
    if (key === undefined) return null;
    const codexTurnId = item.internal_chat_message_metadata_passthrough?.turn_id;
    const turnId = (typeof codexTurnId === 'string' ? state.turns[codexTurnId] : undefined) ?? runningTurnId;
    if (turnId === null) return null;
    const message = toMessage(item, state, turnId);
    if (message === null) return null;
    return {
      id: derivedId('msg', `codex-item:${sessionId}:${item.type}:${key}`),
      ...message,
      turnId,
      metadata: { codexItemId: key, codexItemType: item.type ?? null, ...(typeof codexTurnId === 'string' ? { codexTurnId } : {}) },
    };
  });
}

function toMessage(item: RolloutItem, state: HookState, turnId: string): Pick<MirroredMessage, 'role' | 'kind' | 'parts'> | null {
  switch (item.type) {
    case 'message': {
      if (item.role !== 'assistant') return null;
      const text = texts(item.content, 'output_text').join('\n');
      if (text === '') return null;
      if (state.stopReplies?.[turnId] === text) {
        delete state.stopReplies[turnId];
        return null;
      }
      return reply([{ type: 'text', text }]);
    }
    case 'reasoning': {
      const text = texts(item.summary, 'summary_text').join('\n');
      return text === '' ? null : reply([{ type: 'reasoning', text }]);
    }
    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call': {
      if (typeof item.call_id !== 'string') return null;
      const toolName = typeof item.name === 'string' ? item.name : item.type === 'local_shell_call' ? 'local_shell' : 'unknown';
      state.toolNames[item.call_id] = toolName;
      return reply([{ type: 'tool-call', toolCallId: item.call_id, toolName, input: callInput(item) }]);
    }
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'local_shell_call_output': {
      if (typeof item.call_id !== 'string') return null;
      const toolName = state.toolNames[item.call_id] ?? 'unknown';
      const parts: PartContent[] = [
        { type: 'tool-result', toolCallId: item.call_id, toolName, output: { type: 'text', value: keptResultText(outputText(item.output)) } },
      ];
      return { role: 'tool', kind: 'tool_result', parts };
    }
    default:
      return null;
  }
}

function reply(parts: PartContent[]): Pick<MirroredMessage, 'role' | 'kind' | 'parts'> {
  return { role: 'assistant', kind: 'reply', parts };
}

/** The texts of a content list's items of one type (`output_text`, `summary_text`). */
function texts(content: unknown, type: string): string[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((block) => (block?.type === type && typeof block.text === 'string' && block.text !== '' ? [block.text] : []));
}

/** A function call's arguments (a JSON string) as an object; a freeform call's text as `{ input }`. */
function callInput(item: RolloutItem): JsonValue {
  if (item.type === 'local_shell_call') return (item.action ?? {}) as JsonValue;
  if (item.type === 'custom_tool_call') return { input: typeof item.input === 'string' ? item.input : JSON.stringify(item.input ?? '') };
  if (typeof item.arguments !== 'string') return (item.arguments ?? {}) as JsonValue;
  try {
    return JSON.parse(item.arguments) as JsonValue;
  } catch {
    return { arguments: item.arguments };
  }
}

/** A tool output: a string, `{ content }`, or a list of content items. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((block) => (typeof block?.text === 'string' ? block.text : '')).join('\n');
  if (output !== null && typeof output === 'object' && typeof (output as { content?: unknown }).content === 'string')
    return (output as { content: string }).content;
  return JSON.stringify(output ?? '');
}
