import { closeSync, fsync, fsyncSync, mkdirSync, openSync, unlinkSync, writeSync, writevSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { StoreError } from '../../../model/index.js';
import { newPackFileName, type PackKind } from './pack-file-name.js';

/** Where one batch landed: the pack and each buffer's offset in it. */
export interface PackAppendResult {
  pack: string;
  offsets: number[];
}

/** A pack this writer created; `streams` counts streamed batches whose rows are not committed yet. */
export interface OpenPack {
  readonly name: string;
  fd: number;
  size: number;
  streams: number;
  /** Sealed while a stream was open: closed and marked sealed when the last stream ends. */
  detached: boolean;
  /** Buffers handed to `stream` but not written yet, and their byte count. */
  queued: Buffer[];
  queuedBytes: number;
  /** Bytes written since the last sync was started, and the syncs still running. */
  unsynced: number;
  syncs: Array<Promise<void>>;
}

/** Writes go out in groups of at most this many bytes (fewer syscalls, no copy into one buffer). */
const WRITE_GROUP_BYTES = 1024 * 1024;
/** `writev` takes at most this many buffers per call (IOV_MAX is 1024 on Linux). */
const WRITE_GROUP_BUFFERS = 1024;
/** A streamed pack starts an fsync in the background every this many bytes, so the final one has little left to flush. */
const SYNC_AHEAD_BYTES = 32 * 1024 * 1024;

/**
 * Appends to the pack files this writer created itself. A pack is registered in `blob_packs`
 * before its file exists and sealed when it is full, when a write failed, or on close; sealed packs
 * (and open packs of dead processes) are the only ones compaction rewrites.
 *
 * Two ways to write. `append` writes a whole batch and fsyncs before returning. A stream
 * (`openStream` … `stream` … `syncStream`, then `closeStream` once the rows are committed) writes
 * blobs as they arrive, starting fsyncs in the background as it goes; its pack stays `open` until
 * every stream on it closed, so no compaction (in this process or another) can take it away
 * while its bytes are not indexed yet.
 */
export class PackWriter {
  private current: OpenPack | null = null;

  constructor(
    private readonly db: Database.Database,
    private readonly packDir: string,
    private readonly maxPackBytes: number,
    private readonly kind: PackKind = 'packed',
  ) {}

  /** The pack this writer appends to now, if it has one. */
  get currentPack(): string | null {
    return this.current?.name ?? null;
  }

  /** True while a stream is open on the current pack (it must not be sealed or compacted). */
  get streaming(): boolean {
    return (this.current?.streams ?? 0) > 0;
  }

  /** Append the buffers in order and fsync once. The bytes are durable when this returns. */
  append(buffers: readonly Buffer[]): PackAppendResult {
    const total = buffers.reduce((sum, buffer) => sum + buffer.length, 0);
    if (this.current && this.current.size > 0 && this.current.size + total > this.maxPackBytes) this.seal();
    const pack = this.current ?? this.create();
    this.writeQueued(pack);
    const offsets: number[] = [];
    let offset = pack.size;
    for (const buffer of buffers) {
      offsets.push(offset);
      offset += buffer.length;
    }
    this.guard(pack, () => {
      writeGroups(pack.fd, buffers, pack.size);
      fsyncSync(pack.fd);
    });
    pack.size = offset;
    return { pack: pack.name, offsets };
  }

  /** Start a stream: later `stream` calls land in the returned pack (a full pack is rolled first). */
  openStream(): OpenPack {
    if (this.current && this.current.size >= this.maxPackBytes) this.seal();
    const pack = this.current ?? this.create();
    pack.streams++;
    return pack;
  }

  /** Queue `bytes` at the end of the stream's pack; returns their offset. Not durable before `syncStream`. */
  stream(pack: OpenPack, bytes: Buffer): number {
    const offset = pack.size + pack.queuedBytes;
    pack.queued.push(bytes);
    pack.queuedBytes += bytes.length;
    if (pack.queuedBytes >= WRITE_GROUP_BYTES || pack.queued.length >= WRITE_GROUP_BUFFERS) this.writeQueued(pack);
    return offset;
  }

  /** Write what is queued and fsync: every byte streamed into `pack` so far is durable afterwards. */
  async syncStream(pack: OpenPack): Promise<void> {
    this.writeQueued(pack);
    const running = pack.syncs.splice(0);
    pack.unsynced = 0;
    try {
      await Promise.all(running);
      await fsyncAsync(pack.fd);
    } catch (error) {
      throw this.failed(pack, error);
    }
  }

  /** End a stream (after its rows were committed, or abandoned): a detached pack is finished now. */
  closeStream(pack: OpenPack): void {
    pack.streams--;
    if (pack.detached && pack.streams === 0) this.finish(pack);
  }

  /** Stop appending to the current pack (the next append starts a new one). */
  seal(): void {
    const pack = this.current;
    if (!pack) return;
    this.current = null;
    if (pack.streams > 0) {
      pack.detached = true;
      return;
    }
    this.finish(pack);
  }

  private finish(pack: OpenPack): void {
    closeSync(pack.fd);
    if (pack.size === 0) {
      // Nothing was ever written: drop the file and its registration (no row can refer to it).
      this.db
        .transaction(() => {
          this.db.prepare('DELETE FROM blob_packs WHERE name = ? AND NOT EXISTS (SELECT 1 FROM blob_index WHERE pack = ?)').run(pack.name, pack.name);
        })
        .immediate();
      unlinkSync(join(this.packDir, pack.name));
      return;
    }
    this.db
      .transaction(() => {
        this.db.prepare(`UPDATE blob_packs SET state = 'sealed' WHERE name = ?`).run(pack.name);
      })
      .immediate();
  }

  private writeQueued(pack: OpenPack): void {
    if (pack.queuedBytes === 0 && pack.queued.length === 0) return;
    const buffers = pack.queued;
    const bytes = pack.queuedBytes;
    pack.queued = [];
    pack.queuedBytes = 0;
    this.guard(pack, () => writeGroups(pack.fd, buffers, pack.size));
    pack.size += bytes;
    pack.unsynced += bytes;
    if (pack.unsynced >= SYNC_AHEAD_BYTES) {
      pack.unsynced = 0;
      // Start writeback now, in the thread pool, while the caller goes on reading files.
      const sync = fsyncAsync(pack.fd);
      sync.catch(() => undefined);
      pack.syncs.push(sync);
    }
  }

  private guard(pack: OpenPack, write: () => void): void {
    try {
      write();
    } catch (error) {
      throw this.failed(pack, error);
    }
  }

  /** The tail of this pack is now unknown: stop appending to it; compaction sweeps the rest. */
  private failed(pack: OpenPack, error: unknown): StoreError {
    if (this.current === pack) this.seal();
    return new StoreError({
      code: 'STORE_IO',
      message: `Could not write blob bytes to ${join(this.packDir, pack.name)}: ${(error as Error).message}. Check free disk space and permissions.`,
      details: { pack: pack.name },
      cause: error,
    });
  }

  private create(): OpenPack {
    mkdirSync(this.packDir, { recursive: true });
    const name = newPackFileName(process.pid, this.kind);
    this.db
      .transaction(() => {
        this.db.prepare(`INSERT INTO blob_packs (name, pid, state, created_at) VALUES (?, ?, 'open', ?)`).run(name, process.pid, Date.now());
      })
      .immediate();
    const fd = openSync(join(this.packDir, name), 'wx');
    syncDirectory(this.packDir);
    this.current = { name, fd, size: 0, streams: 0, detached: false, queued: [], queuedBytes: 0, unsynced: 0, syncs: [] };
    return this.current;
  }
}

/** Write `buffers` back to back at `position` with `writev`, in groups, without copying them together. */
function writeGroups(fd: number, buffers: readonly Buffer[], position: number): void {
  let index = 0;
  while (index < buffers.length) {
    const group: Buffer[] = [];
    let groupBytes = 0;
    while (index < buffers.length && group.length < WRITE_GROUP_BUFFERS && (group.length === 0 || groupBytes < WRITE_GROUP_BYTES)) {
      const buffer = buffers[index++]!;
      if (buffer.length === 0) continue;
      group.push(buffer);
      groupBytes += buffer.length;
    }
    if (group.length === 0) break;
    const written = writevSync(fd, group, position);
    if (written < groupBytes) writeRest(fd, group, position, written);
    position += groupBytes;
  }
}

/** Finish a short `writev`: write whatever of `group` lies past `written`. */
function writeRest(fd: number, group: readonly Buffer[], position: number, written: number): void {
  let skip = written;
  let at = position + written;
  for (const buffer of group) {
    if (skip >= buffer.length) {
      skip -= buffer.length;
      continue;
    }
    let done = skip;
    skip = 0;
    while (done < buffer.length) {
      const count = writeSync(fd, buffer, done, buffer.length - done, at);
      done += count;
      at += count;
    }
  }
}

function fsyncAsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
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
