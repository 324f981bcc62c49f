import type { ModelMessage } from 'ai';
import { modelView } from '../history/index.js';
import { ConflictError, InvalidArgumentError, type MessageWithParts } from '../model/index.js';
import { toModelMessages } from './model-messages.js';
import { streamModelStep } from './model-step.js';
import type { RuntimeCore } from './runtime-core.js';

/** When the runtime compacts a conversation on its own (before a turn whose context would be too big). */
export interface AutoCompactOptions {
  /** The model's context window, in tokens (estimated as characters / 4). */
  contextTokens: number;
  /** Compact when the conversation the model would be sent reaches this share of the window (default 0.8). */
  threshold?: number;
}

export interface CompactionResult {
  sessionId: string;
  /** The summary message appended (kind `summary`, `metadata.covers.to` = the last message it replaces). */
  summaryMessageId: string;
  coversTo: string;
  /** Estimated tokens the model was sent before and is sent after. */
  tokensBefore: number;
  tokensAfter: number;
  trigger: 'manual' | 'auto';
}

const INSTRUCTIONS = [
  'Summarize the conversation so far for yourself, to continue the work with this summary in place of the conversation.',
  'Keep: what the person asked for and still wants, decisions made and why, the files changed and their state, commands run and what they showed, open problems and next steps.',
  'Be specific (paths, names, values). Do not call tools. Reply with the summary only.',
].join(' ');

/** Tokens a model view costs, roughly (4 characters a token, as providers' tokenizers average on code and English). */
export function estimateTokens(messages: readonly ModelMessage[]): number {
  return Math.ceil(JSON.stringify(messages).length / 4);
}

/** Whether the next turn should start by compacting (auto compaction on, and the view is over the threshold). */
export function needsCompaction(path: readonly MessageWithParts[], options: AutoCompactOptions | false): boolean {
  if (!options) return false;
  return estimateTokens(toModelMessages(path)) >= options.contextTokens * (options.threshold ?? 0.8);
}

/**
 * Compacts a session's conversation: the model summarizes what it is sent now, and the summary is
 * appended as a `summary` message covering everything up to the head. The model is then sent the
 * summary and what follows; the person still sees it all (compaction is a view — nothing is
 * removed, and a rewind to before the summary brings the full conversation back).
 */
export async function compactSession(
  core: RuntimeCore,
  sessionId: string,
  options: { instructions?: string; signal: AbortSignal; trigger: 'manual' | 'auto' },
): Promise<CompactionResult> {
  const { store } = core.waypoint;
  const session = await store.getSession(sessionId);
  const path = await store.history(sessionId);
  const visible = modelView(path);
  if (session.headMessageId === null || visible.filter((message) => message.role !== 'system').length < 2 || visible.at(-1)?.kind === 'summary') {
    throw new ConflictError({
      code: 'NOTHING_TO_COMPACT',
      message: `Session ${sessionId} has nothing to compact yet: the model is sent ${visible.length === 0 ? 'no message' : 'only a summary or a single message'}.`,
      details: { sessionId },
    });
  }
  if (options.instructions !== undefined && options.instructions.length > 10_000) {
    throw new InvalidArgumentError({
      parameter: 'instructions',
      value: options.instructions.slice(0, 40),
      reason: 'compaction instructions are at most 10,000 characters.',
    });
  }
  const messages = toModelMessages(path);
  const request = `${INSTRUCTIONS}${options.instructions ? `\nAlso: ${options.instructions}` : ''}`;
  const outcome = await streamModelStep({
    model: core.model,
    system: core.system,
    messages: [...messages, { role: 'user', content: [{ type: 'text', text: request }] }],
    tools: [...core.tools.values()],
    signal: options.signal,
    maxRetries: core.settings.maxRetries,
    onDelta: async () => {},
  });
  if (outcome.aborted)
    throw new ConflictError({ code: 'COMPACTION_ABORTED', message: 'Compaction was interrupted; the conversation is unchanged.', details: { sessionId } });
  if (outcome.error) throw outcome.error;
  const summary = outcome.parts
    .filter((part) => part.type === 'text')
    .map((part) => String(part.text))
    .join('')
    .trim();
  if (summary === '') {
    throw new ConflictError({
      code: 'COMPACTION_EMPTY',
      message: 'The model returned no summary, so nothing was compacted; try again or with other instructions.',
      details: { sessionId },
    });
  }
  const coversTo = session.headMessageId;
  const appended = await store.appendMessage({
    sessionId,
    expectedHeadId: coversTo,
    role: 'user',
    kind: 'summary',
    parts: [{ type: 'text', text: `This is a summary of the conversation so far (earlier messages are compacted):\n\n${summary}` }],
    metadata: { covers: { to: coversTo }, compaction: { trigger: options.trigger } },
  });
  const after = estimateTokens(toModelMessages(await store.history(sessionId)));
  return { sessionId, summaryMessageId: appended.message.id, coversTo, tokensBefore: estimateTokens(messages), tokensAfter: after, trigger: options.trigger };
}
