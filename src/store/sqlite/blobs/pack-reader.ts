import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Positional reads from pack files with a small cache of open descriptors. Packs are append-only
 * and never modified in place, so a cached descriptor stays valid even after another process
 * compacted and unlinked its pack (the bytes live until the descriptor closes).
 */
export class PackReader {
  private readonly descriptors = new Map<string, number>();

  constructor(
    private readonly packDir: string,
    private readonly maxOpen = 32,
  ) {}

  /**
   * Read `length` bytes at `offset` of `pack`. Throws the `ENOENT` error when the pack file does
   * not exist; returns fewer bytes than asked when the file is shorter (a truncated pack).
   */
  read(pack: string, offset: number, length: number): Buffer {
    const buffer = Buffer.allocUnsafe(length);
    const fd = this.descriptor(pack);
    let done = 0;
    while (done < length) {
      const count = readSync(fd, buffer, done, length - done, offset + done);
      if (count === 0) break;
      done += count;
    }
    return done === length ? buffer : buffer.subarray(0, done);
  }

  /** Close the cached descriptor of one pack (after this process unlinked it). */
  forget(pack: string): void {
    const fd = this.descriptors.get(pack);
    if (fd === undefined) return;
    this.descriptors.delete(pack);
    closeSync(fd);
  }

  close(): void {
    for (const pack of [...this.descriptors.keys()]) this.forget(pack);
  }

  private descriptor(pack: string): number {
    const cached = this.descriptors.get(pack);
    if (cached !== undefined) {
      // Refresh recency: Map iteration order is insertion order.
      this.descriptors.delete(pack);
      this.descriptors.set(pack, cached);
      return cached;
    }
    const fd = openSync(join(this.packDir, pack), 'r');
    this.descriptors.set(pack, fd);
    if (this.descriptors.size > this.maxOpen) {
      const oldest = this.descriptors.keys().next().value as string;
      this.forget(oldest);
    }
    return fd;
  }
}
