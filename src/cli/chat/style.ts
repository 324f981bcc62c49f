/** Colors for the chat on a terminal; plain text when not a terminal or when `NO_COLOR` is set. */
export interface Style {
  dim(text: string): string;
  bold(text: string): string;
  accent(text: string): string;
  warn(text: string): string;
  error(text: string): string;
  ok(text: string): string;
  inverse(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;

export function createStyle(color: boolean): Style {
  if (!color) {
    const same = (text: string) => text;
    return { dim: same, bold: same, accent: same, warn: same, error: same, ok: same, inverse: same };
  }
  return { dim: wrap(2, 22), bold: wrap(1, 22), accent: wrap(36, 39), warn: wrap(33, 39), error: wrap(31, 39), ok: wrap(32, 39), inverse: wrap(7, 27) };
}

/** Removes ANSI escape sequences (for width computations and tests). */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
}
