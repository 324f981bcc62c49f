import { clipWidth, displayWidth, graphemes } from '../render/text-width.js';
import type { LineBuffer } from './line-buffer.js';
import { stripAnsi, type Style } from './style.js';

/** One drawn input line: the text to write, its width in columns, and how far to move the cursor back after it. */
export interface InputLine {
  text: string;
  width: number;
  back: number;
}

/**
 * The input line as drawn on one terminal row: a prefix (the prompt), then the buffer, scrolled
 * horizontally so the cursor stays visible, measured in display columns so it never wraps. A
 * pasted newline shows as a dim `↵`, a tab as a space.
 */
export function inputLine(prefix: string, buffer: LineBuffer, columns: number, style: Style): InputLine {
  const width = columns - 1;
  if (displayWidth(prefix) > width - 10) prefix = clipWidth(stripAnsi(prefix), Math.max(1, width - 10));
  const prefixWidth = displayWidth(prefix);
  const room = Math.max(1, width - prefixWidth);
  const before = graphemes(buffer.before).map(shown);
  const after = graphemes(buffer.after).map(shown);
  let start = before.length;
  let used = 0;
  while (start > 0 && used + displayWidth(before[start - 1]!) < room) used += displayWidth(before[--start]!);
  let end = 0;
  let back = 0;
  while (end < after.length && used + back + displayWidth(after[end]!) <= room) back += displayWidth(after[end++]!);
  const visible = [...before.slice(start), ...after.slice(0, end)].map((text) => (text === '↵' ? style.dim(text) : text)).join('');
  return { text: `${prefix}${visible}`, width: prefixWidth + used + back, back };
}

/** How a grapheme of the input is drawn: a newline of a pasted block as `↵`, a tab as a space, other controls as nothing. */
function shown(grapheme: string): string {
  if (grapheme === '\n') return '↵';
  if (grapheme === '\t') return ' ';
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x1f\x7f]$/.test(grapheme) ? '' : grapheme;
}
