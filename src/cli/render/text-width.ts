import stringWidth from 'string-width';

/**
 * Text measured as a terminal shows it: in display columns (a CJK character is two wide, an emoji
 * sequence two, a combining mark none) and cut only between graphemes (what a person sees as one
 * character: a base letter and its marks, a flag, a family emoji), never inside a surrogate pair.
 * ANSI color sequences take no columns.
 */

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The graphemes of a text, in order. */
export function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (segment) => segment.segment);
}

/** Columns the text takes on a terminal (escape sequences excluded). */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

/** At most `max` columns: cut between graphemes with `…` when longer. */
export function clipWidth(text: string, max: number): string {
  if (displayWidth(text) <= max) return text;
  let width = 0;
  let out = '';
  for (const grapheme of graphemes(text)) {
    const cells = displayWidth(grapheme);
    if (width + cells > max - 1) break;
    out += grapheme;
    width += cells;
  }
  return `${out}…`;
}

/** Pads with spaces to `width` columns (a text already as wide is returned as is). */
export function padEndWidth(text: string, width: number): string {
  const missing = width - displayWidth(text);
  return missing > 0 ? text + ' '.repeat(missing) : text;
}

/**
 * `text` broken into lines of at most `max` columns: at spaces where it can, inside a word only
 * when the word alone is wider (between graphemes); its own line breaks are kept.
 */
export function wrapWidth(text: string, max: number): string[] {
  const width = Math.max(1, max);
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    for (const word of paragraph.split(/[ \t]+/).filter((part) => part !== '')) {
      const joined = line === '' ? word : `${line} ${word}`;
      if (displayWidth(joined) <= width) {
        line = joined;
        continue;
      }
      if (line !== '') lines.push(line);
      line = '';
      for (const grapheme of graphemes(word)) {
        if (displayWidth(line + grapheme) > width && line !== '') {
          lines.push(line);
          line = '';
        }
        line += grapheme;
      }
    }
    lines.push(line);
  }
  return lines;
}
