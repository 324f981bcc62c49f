import { graphemes } from '../render/text-width.js';

/**
 * The editable input: text and a cursor that moves and deletes by grapheme (what a person sees as
 * one character: `é` written as e + a combining accent, a flag, a family emoji), so editing never
 * splits one. The text may hold newlines (a pasted block). Pure operations, so the terminal layer
 * only maps keys to them and redraws.
 */
export class LineBuffer {
  private value = '';
  /** UTF-16 offset of the cursor, always between two graphemes. */
  private at = 0;

  get text(): string {
    return this.value;
  }

  /** The text before the cursor. */
  get before(): string {
    return this.value.slice(0, this.at);
  }

  /** The text after the cursor. */
  get after(): string {
    return this.value.slice(this.at);
  }

  /** Graphemes before the cursor. */
  get cursor(): number {
    return graphemes(this.before).length;
  }

  /** Graphemes after the cursor. */
  get tail(): number {
    return graphemes(this.after).length;
  }

  set(text: string): void {
    this.value = text;
    this.at = text.length;
  }

  insert(text: string): void {
    this.value = this.value.slice(0, this.at) + text + this.value.slice(this.at);
    this.at += text.length;
    this.snap();
  }

  backspace(): void {
    const last = graphemes(this.before).pop();
    if (last === undefined) return;
    this.value = this.value.slice(0, this.at - last.length) + this.value.slice(this.at);
    this.at -= last.length;
  }

  deleteForward(): void {
    const next = graphemes(this.after)[0];
    if (next !== undefined) this.value = this.value.slice(0, this.at) + this.value.slice(this.at + next.length);
  }

  left(): void {
    this.at -= graphemes(this.before).pop()?.length ?? 0;
  }

  right(): void {
    this.at += graphemes(this.after)[0]?.length ?? 0;
  }

  home(): void {
    this.at = 0;
  }

  end(): void {
    this.at = this.value.length;
  }

  /** Ctrl-U: delete from the start of the line to the cursor. */
  killBefore(): void {
    this.value = this.after;
    this.at = 0;
  }

  /** Ctrl-K: delete from the cursor to the end. */
  killAfter(): void {
    this.value = this.before;
  }

  /** Ctrl-W: delete the word before the cursor (and the spaces after it). */
  deleteWord(): void {
    const before = graphemes(this.before);
    let start = before.length;
    while (start > 0 && /^\s+$/.test(before[start - 1]!)) start--;
    while (start > 0 && !/^\s+$/.test(before[start - 1]!)) start--;
    const kept = before.slice(0, start).join('');
    this.value = kept + this.after;
    this.at = kept.length;
  }

  /** Take the line out (on Enter), leaving the buffer empty. */
  take(): string {
    const text = this.text;
    this.set('');
    return text;
  }

  /** An insertion can join the graphemes around it (a flag's second half): keep the cursor between two. */
  private snap(): void {
    let offset = 0;
    for (const grapheme of graphemes(this.value)) {
      if (offset >= this.at) break;
      offset += grapheme.length;
    }
    this.at = offset;
  }
}
