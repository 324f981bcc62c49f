import { displayWidth, graphemes } from '../../src/cli/render/text-width.js';

/**
 * What a terminal shows after the given output: a small emulator of the escape sequences the chat
 * writes (cursor up/down/left/right, carriage return, line feed, erase line / to the end of the
 * screen, save and restore, index and reverse index, wrapping at the last column), colors dropped.
 * The screen grows downwards without a limit (scrolled-off rows are kept), so a test reads the whole
 * transcript as the rows a person saw, in order. Wide characters take two cells.
 */
export function renderScreen(output: string, columns: number): string[] {
  const rows: string[][] = [[]];
  let row = 0;
  let col = 0;
  let wrapPending = false;
  let saved = { row: 0, col: 0 };
  const line = (index: number) => {
    while (rows.length <= index) rows.push([]);
    return rows[index]!;
  };
  const down = () => {
    row++;
    line(row);
  };
  const put = (grapheme: string) => {
    const width = Math.max(1, displayWidth(grapheme));
    if (wrapPending || col + width > columns) {
      row++;
      col = 0;
      wrapPending = false;
    }
    const cells = line(row);
    while (cells.length < col) cells.push(' ');
    cells[col] = grapheme;
    for (let extra = 1; extra < width; extra++) cells[col + extra] = '';
    col += width;
    if (col >= columns) {
      col = columns - 1;
      wrapPending = true;
    }
  };
  const pattern = /\x1b\[([0-9;?]*)([A-Za-z~])|\x1b([78DM])|([\r\n\b])|([^\x1b\r\n\b]+)/g;
  for (const match of output.matchAll(pattern)) {
    const [, params, command, short, control, text] = match;
    if (text !== undefined) {
      for (const grapheme of graphemes(text.replace(/[\x00-\x1f\x7f]/g, ''))) put(grapheme);
      continue;
    }
    if (control !== undefined) {
      if (control === '\r') col = 0;
      else if (control === '\n') down();
      else col = Math.max(0, col - 1);
      wrapPending = false;
      continue;
    }
    if (short !== undefined) {
      if (short === '7') saved = { row, col };
      else if (short === '8') ({ row, col } = saved);
      else if (short === 'D') down();
      else row = Math.max(0, row - 1);
      wrapPending = false;
      continue;
    }
    const count = Math.max(1, Number.parseInt(params ?? '', 10) || 1);
    switch (command) {
      case 'A':
        row = Math.max(0, row - count);
        break;
      case 'B':
        row += count;
        line(row);
        break;
      case 'C':
        col = Math.min(columns - 1, col + count);
        break;
      case 'D':
        col = Math.max(0, col - count);
        break;
      case 'G':
        col = count - 1;
        break;
      case 'K':
        if (params === '2') rows[row] = [];
        else line(row).length = Math.min(line(row).length, col);
        break;
      case 'J':
        line(row).length = Math.min(line(row).length, col);
        rows.length = row + 1;
        break;
      case 's':
        saved = { row, col };
        break;
      case 'u':
        ({ row, col } = saved);
        break;
      default:
        // Colors, modes (bracketed paste): nothing to draw.
        continue;
    }
    wrapPending = false;
  }
  return rows.map((cells) => cells.join('').trimEnd());
}
