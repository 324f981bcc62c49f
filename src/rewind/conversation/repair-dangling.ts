import type { MessageWithParts, PartContent } from '../../model/index.js';
import type { Store } from '../../store/store.js';

export interface DanglingRepair {
  /** Tool calls that had no result and got a synthetic "interrupted" one. */
  repairedCalls: Array<{ toolCallId: string; toolName: string }>;
  /** Turns that were running and are now marked interrupted. */
  interruptedTurns: string[];
  /** The tool message appended with the synthetic results, if any. */
  messageId: string | null;
}

/**
 * Resume after a crash: every tool call on the active path since the last user input that has no
 * result gets a synthetic error result saying it was interrupted (so the history is valid input for
 * a model again), streaming messages are finished as interrupted, and running turns are marked
 * interrupted. Idempotent: a second run finds nothing to repair.
 */
export async function repairDanglingToolCalls(store: Store, sessionId: string, options: { lookback?: number } = {}): Promise<DanglingRepair> {
  const tail = await store.history(sessionId, { last: options.lookback ?? 200 });
  const results = new Set<string>();
  const calls: Array<{ toolCallId: string; toolName: string }> = [];
  for (const message of tail) {
    for (const part of message.parts) {
      const content = part.content;
      if (content?.type === 'tool-result' && typeof content.toolCallId === 'string') results.add(content.toolCallId);
      if (content?.type === 'tool-call' && typeof content.toolCallId === 'string') {
        calls.push({ toolCallId: content.toolCallId, toolName: String(content.toolName ?? 'unknown') });
      }
    }
  }
  for (const message of tail.filter((candidate: MessageWithParts) => candidate.status === 'streaming')) {
    await store.finishMessage(message.id, 'interrupted');
  }
  const dangling = calls.filter((call) => !results.has(call.toolCallId));
  const running = await store.listTurns(sessionId, { status: 'running' });
  let messageId: string | null = null;
  if (dangling.length > 0) {
    const parts: PartContent[] = dangling.map((call) => ({
      type: 'tool-result',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: { type: 'error-text', value: 'Interrupted: the session stopped before this tool call finished. Its effects, if any, are unknown.' },
    }));
    const turnId = running.at(-1)?.id ?? tail.at(-1)?.turnId ?? null;
    const { message } = await store.appendMessage({ sessionId, role: 'tool', parts, turnId, metadata: { synthetic: 'interrupted' } });
    messageId = message.id;
  }
  for (const turn of running) await store.updateTurn(turn.id, { status: 'interrupted', endedAt: Date.now() });
  return { repairedCalls: dangling, interruptedTurns: running.map((turn) => turn.id), messageId };
}
