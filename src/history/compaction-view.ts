import type { Message } from '../model/index.js';
import { coveredRange, visibilityOf } from './message-visibility.js';

type Viewable = Pick<Message, 'id' | 'kind' | 'metadata'>;

/**
 * Applies compaction to a path (oldest first). A summary message replaces everything on the path
 * up to the message its `metadata.covers.to` names — earlier summaries included, since a summary
 * is written from a view that already held them — and takes that place: the view reads *summary,
 * then what follows the covered range*. The last valid summary on the path wins. The full path
 * stays in the store; a rewind to before the summary cuts it off with everything after it, and the
 * earlier view is back. Returns indexes into `path`, in view order.
 */
export function compactionOrder(path: readonly Viewable[]): number[] {
  const index = new Map(path.map((message, position) => [message.id, position]));
  for (let position = path.length - 1; position >= 0; position--) {
    const range = coveredRange(path[position]!);
    if (!range) continue;
    const to = index.get(range.to);
    if (to === undefined || to >= position) continue; // covers nothing on this path
    const order = [position];
    for (let next = to + 1; next < path.length; next++) {
      if (next === position || (next < position && path[next]!.kind === 'summary')) continue;
      order.push(next);
    }
    return order;
  }
  return path.map((_, position) => position);
}

/** Path positions a summary hides from the model (the range of the last valid summary). */
export function compactedPositions(path: readonly Viewable[]): Set<number> {
  const shown = new Set(compactionOrder(path));
  return new Set(path.map((_, position) => position).filter((position) => !shown.has(position)));
}

/** What is sent to the model: compaction applied, person-only messages left out. */
export function modelView<T extends Viewable>(path: readonly T[]): T[] {
  return compactionOrder(path)
    .map((position) => path[position]!)
    .filter((message) => visibilityOf(message) !== 'ui');
}

/**
 * What a person sees: the same compaction (after a rewind the UI shows what the model is
 * sent, from the last summary on), model-only messages left out, and for a side chat nothing it
 * inherited (its view starts after `startAfter`).
 */
export function uiView<T extends Viewable>(path: readonly T[], options: { startAfter?: string | null } = {}): T[] {
  let start = 0;
  if (options.startAfter) {
    const at = path.findIndex((message) => message.id === options.startAfter);
    if (at >= 0) start = at + 1;
  }
  return compactionOrder(path)
    .filter((position) => position >= start)
    .map((position) => path[position]!)
    .filter((message) => visibilityOf(message) !== 'model');
}
