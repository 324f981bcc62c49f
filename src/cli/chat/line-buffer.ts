/**
 * The editable input line: characters (code points, so an emoji is one step) and a cursor. Pure
 * operations, so the terminal layer only maps keys to them and redraws.
 */
export class LineBuffer {
  private chars: string[] = [];
  private at = 0;

  get text(): string {
    return this.chars.join('');
  }

  get cursor(): number {
    return this.at;
  }

  /** Characters after the cursor (how far to move the terminal cursor back after drawing). */
  get tail(): number {
    return this.chars.length - this.at;
  }

  set(text: string): void {
    this.chars = Array.from(text);
    this.at = this.chars.length;
  }

  insert(text: string): void {
    const added = Array.from(text);
    this.chars.splice(this.at, 0, ...added);
    this.at += added.length;
  }

  backspace(): void {
    if (this.at === 0) return;
    this.chars.splice(this.at - 1, 1);
    this.at--;
  }

  deleteForward(): void {
    this.chars.splice(this.at, 1);
  }

  left(): void {
    this.at = Math.max(0, this.at - 1);
  }

  right(): void {
    this.at = Math.min(this.chars.length, this.at + 1);
  }

  home(): void {
    this.at = 0;
  }

  end(): void {
    this.at = this.chars.length;
  }

  /** Ctrl-U: delete from the start of the line to the cursor. */
  killBefore(): void {
    this.chars.splice(0, this.at);
    this.at = 0;
  }

  /** Ctrl-K: delete from the cursor to the end. */
  killAfter(): void {
    this.chars.splice(this.at);
  }

  /** Ctrl-W: delete the word before the cursor (and the spaces after it). */
  deleteWord(): void {
    let start = this.at;
    while (start > 0 && /\s/.test(this.chars[start - 1]!)) start--;
    while (start > 0 && !/\s/.test(this.chars[start - 1]!)) start--;
    this.chars.splice(start, this.at - start);
    this.at = start;
  }

  /** Take the line out (on Enter), leaving the buffer empty. */
  take(): string {
    const text = this.text;
    this.set('');
    return text;
  }
}
