import type { Message } from '../model/index.js';

/**
 * Who sees a message: everyone (`all`, the default), only the model (`model`: fork notes, boundary
 * reminders, hook injections), or only the person (`ui`: dividers and notices never sent to the
 * model). Kept in `message.metadata.visibility`.
 */
export type Visibility = 'all' | 'model' | 'ui';

export function visibilityOf(message: Pick<Message, 'metadata'>): Visibility {
  const value = message.metadata.visibility;
  return value === 'model' || value === 'ui' ? value : 'all';
}

/**
 * What a summary replaces: `metadata.covers = { to }`, everything on the path up to and including
 * message `to`.
 */
export interface CoveredRange {
  to: string;
}

export function coveredRange(message: Pick<Message, 'kind' | 'metadata'>): CoveredRange | null {
  if (message.kind !== 'summary') return null;
  const covers = message.metadata.covers;
  if (covers === null || typeof covers !== 'object' || Array.isArray(covers)) return null;
  return typeof covers.to === 'string' ? { to: covers.to } : null;
}

/** A user message a person typed (not a summary, hook/meta injection, task notification or fork note). */
export function isUserInput(message: Pick<Message, 'role' | 'kind' | 'metadata'>): boolean {
  return message.role === 'user' && message.kind === 'input' && visibilityOf(message) !== 'model';
}
