/**
 * What an entry costs beyond its bytes (its key, its map slot, its Buffer object), counted against
 * the budget so that many small contents cannot hold more memory than the budget says.
 */
const ENTRY_OVERHEAD = 192;

/**
 * Recently read contents, verified against their hash, kept in memory up to a byte budget (least
 * recently used out first). Reading a content from the store costs its index record, its stored
 * bytes, an inflate or a delta chain, and a hash: about 0.1 ms for a small file, much more for a
 * large one whose versions are a delta chain down to a whole blob (git keeps a delta base cache
 * for the same reason). An undo reads the contents it puts back; its redo, and the undo after it,
 * read the same ones again. Contents are immutable by address, so a hit is always right; each
 * entry is a copy of its own (outside Node's shared small-Buffer pool, so an entry holds only its
 * bytes), and callers get their own copy unless they only read it (`peek`).
 */
export class DecodedCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly budget: number) {}

  /** Whether a content of this many bytes would be kept (no single one takes more than a quarter of the budget). */
  keeps(length: number): boolean {
    return length + ENTRY_OVERHEAD <= this.budget / 4;
  }

  /** A copy of the content of `hash`, when kept. */
  get(hash: string): Buffer | undefined {
    const content = this.peek(hash);
    return content === undefined ? undefined : Buffer.from(content);
  }

  /**
   * The kept content of `hash` itself, not a copy: for a caller that only reads it (writes it to a
   * file, hashes or compares it) and never hands it on. Changing its bytes would change what every
   * later read of `hash` gets.
   */
  peek(hash: string): Buffer | undefined {
    const content = this.entries.get(hash);
    if (content === undefined) return undefined;
    this.entries.delete(hash);
    this.entries.set(hash, content);
    return content;
  }

  /** Keeps `content`, which the caller verified hashes to `hash` (a copy: the caller may change its own). */
  set(hash: string, content: Buffer): void {
    if (!this.keeps(content.length) || this.entries.has(hash)) return;
    const copy = Buffer.allocUnsafeSlow(content.length);
    content.copy(copy);
    this.entries.set(hash, copy);
    this.bytes += content.length + ENTRY_OVERHEAD;
    for (const [oldest, kept] of this.entries) {
      if (this.bytes <= this.budget) break;
      this.entries.delete(oldest);
      this.bytes -= kept.length + ENTRY_OVERHEAD;
    }
  }

  /** Bytes held, entries' overhead included. */
  get size(): number {
    return this.bytes;
  }
}
