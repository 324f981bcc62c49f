import { compactedPositions, coveredRange, visibilityOf } from '../../history/index.js';
import type { Message } from '../../model/index.js';

type Viewable = Pick<Message, 'id' | 'kind' | 'metadata'>;

/** One message of the conversation as a person reads it back. */
export interface ConversationEntry<T> {
  message: T;
  /** Replaced by a summary in what the model is sent (the person still sees it). */
  compacted: boolean;
  /** For a compaction summary: how many earlier messages it stands for; null for every other message. */
  summaryOf: number | null;
}

/**
 * The conversation on a session's active path as the person had it: every message in the order it
 * came (model-only ones left out), those a compaction replaced for the model marked `compacted`,
 * and each summary where it was made, with the number of earlier messages it stands for. A side
 * chat starts after `startAfter` (what it inherited is not its own).
 */
export function conversationView<T extends Viewable>(path: readonly T[], options: { startAfter?: string | null } = {}): ConversationEntry<T>[] {
  const hidden = compactedPositions(path);
  const position = new Map(path.map((message, index) => [message.id, index]));
  const visible = (message: T) => visibilityOf(message) !== 'model';
  let start = 0;
  if (options.startAfter) start = (position.get(options.startAfter) ?? -1) + 1;
  const entries: ConversationEntry<T>[] = [];
  path.forEach((message, index) => {
    if (index < start || !visible(message)) return;
    const range = coveredRange(message);
    const to = range ? position.get(range.to) : undefined;
    const summaryOf = to === undefined || to >= index ? null : path.slice(0, to + 1).filter((covered) => visible(covered) && covered.kind !== 'summary').length;
    entries.push({ message, compacted: hidden.has(index), summaryOf });
  });
  return entries;
}

/** The line that marks a compaction summary. */
export function compactedMarker(summaryOf: number): string {
  return `── compacted: summary of ${summaryOf} earlier ${summaryOf === 1 ? 'message' : 'messages'} (what the model is sent instead of them) ──`;
}
