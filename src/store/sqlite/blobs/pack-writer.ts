import { closeSync, fsyncSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { StoreError } from '../../../model/index.js';
import { newPackFileName } from './pack-file-name.js';

/** Where one batch landed: the pack and each buffer's offset in it. */
export interface PackAppendResult {
  pack: string;
  offsets: number[];
}

interface OpenPack {
  name: string;
  fd: number;
  size: number;
}

/** Batches are copied into chunks of this size before writing (fewer syscalls, bounded memory). */
const WRITE_CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Appends to the pack files this writer created itself. A pack is registered in `blob_packs`
 * before its file exists and sealed when it is full, when a write failed, or on close; sealed packs
 * (and open packs of dead processes) are the only ones compaction rewrites.
 */
export class PackWriter {
  private current: OpenPack | null = null;

  constructor(
    private readonly db: Database.Database,
    private readonly packDir: string,
    private readonly maxPackBytes: number,
  ) {}

  /** The pack this writer appends to now, if it has one. */
  get currentPack(): string | null {
    return this.current?.name ?? null;
  }

  /** Append the buffers in order and fsync once. The bytes are durable when this returns. */
  append(buffers: readonly Buffer[]): PackAppendResult {
    const total = buffers.reduce((sum, buffer) => sum + buffer.length, 0);
    if (this.current && this.current.size > 0 && this.current.size + total > this.maxPackBytes) this.seal();
    const pack = this.current ?? this.create();
    const offsets: number[] = [];
    let position = pack.size;
    try {
      let chunk: Buffer[] = [];
      let chunkBytes = 0;
      const flush = () => {
        if (chunkBytes === 0) return;
        const bytes = chunk.length === 1 ? chunk[0]! : Buffer.concat(chunk, chunkBytes);
        writeFully(pack.fd, bytes, position);
        position += bytes.length;
        chunk = [];
        chunkBytes = 0;
      };
      let offset = pack.size;
      for (const buffer of buffers) {
        offsets.push(offset);
        offset += buffer.length;
        chunk.push(buffer);
        chunkBytes += buffer.length;
        if (chunkBytes >= WRITE_CHUNK_BYTES) flush();
      }
      flush();
      fsyncSync(pack.fd);
    } catch (error) {
      // The tail of this pack is now unknown: stop appending to it; compaction sweeps the rest.
      this.seal();
      throw new StoreError({
        code: 'STORE_IO',
        message: `Could not write blob bytes to ${join(this.packDir, pack.name)}: ${(error as Error).message}. Check free disk space and permissions.`,
        details: { pack: pack.name },
        cause: error,
      });
    }
    pack.size = position;
    return { pack: pack.name, offsets };
  }

  /** Stop appending to the current pack (the next append starts a new one). */
  seal(): void {
    const pack = this.current;
    if (!pack) return;
    this.current = null;
    closeSync(pack.fd);
    if (pack.size === 0) {
      // Nothing was ever written: drop the file and its registration (no row can refer to it).
      this.db.transaction(() => {
        this.db.prepare('DELETE FROM blob_packs WHERE name = ? AND NOT EXISTS (SELECT 1 FROM blob_index WHERE pack = ?)').run(pack.name, pack.name);
      }).immediate();
      unlinkSync(join(this.packDir, pack.name));
      return;
    }
    this.db.transaction(() => {
      this.db.prepare(`UPDATE blob_packs SET state = 'sealed' WHERE name = ?`).run(pack.name);
    }).immediate();
  }

  private create(): OpenPack {
    mkdirSync(this.packDir, { recursive: true });
    const name = newPackFileName();
    this.db.transaction(() => {
      this.db
        .prepare(`INSERT INTO blob_packs (name, pid, state, created_at) VALUES (?, ?, 'open', ?)`)
        .run(name, process.pid, Date.now());
    }).immediate();
    const fd = openSync(join(this.packDir, name), 'wx');
    syncDirectory(this.packDir);
    this.current = { name, fd, size: 0 };
    return this.current;
  }
}

function writeFully(fd: number, bytes: Buffer, position: number): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}

/** Make a new directory entry durable (the pack file's name survives a power loss). */
export function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
