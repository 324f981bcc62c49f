import type { Message } from '../model/index.js';
import { compactedPositions } from './compaction-view.js';
import { coveredRange, visibilityOf } from './message-visibility.js';

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
 * chat starts after `startAfter` (what it inherited is not its own). What `waypoint show` and the
 * browser both show.
 */
export function conversationView<T extends Viewable>(path: readonly T[], options: { startAfter?: string | null } = {}): ConversationEntry<T>[] {
  const hidden = compactedPositions(path);
  const position = new Map(path.map((message, index) => [message.id, index]));
  const visible = (message: T) => visibilityOf(message) !== 'model';
  let start = 0;
  if (options.startAfter) start = (position.get(options.startAfter) ?? -1) + 1;
  // Visible non-summary messages up to each position, so a summary's count is one lookup.
  const counted: number[] = [];
  let running = 0;
  path.forEach((message, index) => {
    if (visible(message) && message.kind !== 'summary') running++;
    counted[index] = running;
  });
  const entries: ConversationEntry<T>[] = [];
  path.forEach((message, index) => {
    if (index < start || !visible(message)) return;
    const range = coveredRange(message);
    const to = range ? position.get(range.to) : undefined;
    const summaryOf = to === undefined || to >= index ? null : counted[to]!;
    entries.push({ message, compacted: hidden.has(index), summaryOf });
  });
  return entries;
}
