import { clipWidth, displayWidth, graphemes } from '../render/text-width.js';

/** Display columns a title taken from an input may take. */
export const TITLE_COLUMNS = 60;

/**
 * A session's title from its first input: the first line with text, trimmed, spaces collapsed,
 * clipped to {@link TITLE_COLUMNS} display columns (with `…`, cut between graphemes).
 *
 * @example
 * sessionTitle('\n  fix the parser\nit chokes on empty lines') // 'fix the parser'
 */
export function sessionTitle(input: string): string {
  const line = input.split('\n').find((candidate) => candidate.trim() !== '') ?? '';
  return clipWidth(line.trim().replace(/\s+/g, ' '), TITLE_COLUMNS);
}

/** At most `max` columns, keeping the end (`…/project-fork`): for paths. */
export function clipStart(text: string, max: number): string {
  if (displayWidth(text) <= max) return text;
  const kept: string[] = [];
  let width = 1;
  for (const grapheme of graphemes(text).reverse()) {
    const cells = displayWidth(grapheme);
    if (width + cells > max) break;
    kept.unshift(grapheme);
    width += cells;
  }
  return `…${kept.join('')}`;
}
