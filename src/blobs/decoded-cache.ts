/**
 * Recently read large contents, verified against their hash, kept in memory up to a byte budget
 * (least recently used out first), the way git keeps a delta base cache: a version of a large file
 * is a delta chain down to a whole blob, and reading the next version of the same file (an undo,
 * then its redo) would otherwise inflate that base and compose the chain again. Contents are
 * immutable by address, so a hit is always right; callers get their own copy.
 */
export class DecodedCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(
    private readonly budget: number,
    /** Contents below this decode fast enough: not kept. */
    private readonly minimum: number,
  ) {}

  /** Whether a content of this many bytes would be kept. */
  keeps(length: number): boolean {
    return length >= this.minimum && length <= this.budget / 4;
  }

  /** A copy of the content of `hash`, when kept. */
  get(hash: string): Buffer | undefined {
    const content = this.entries.get(hash);
    if (content === undefined) return undefined;
    this.entries.delete(hash);
    this.entries.set(hash, content);
    return Buffer.from(content);
  }

  /** Keeps `content`, which the caller verified hashes to `hash` (a copy: the caller may change its own). */
  set(hash: string, content: Buffer): void {
    if (!this.keeps(content.length) || this.entries.has(hash)) return;
    this.entries.set(hash, Buffer.from(content));
    this.bytes += content.length;
    for (const [oldest, kept] of this.entries) {
      if (this.bytes <= this.budget) break;
      this.entries.delete(oldest);
      this.bytes -= kept.length;
    }
  }
}
