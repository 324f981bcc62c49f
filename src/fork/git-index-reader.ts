import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import type { IndexEntry } from './git-checkout.js';

/** SHA-1 object ids (the index's trailing checksum says which hash the repository uses). */
const OID_BYTES = 20;
/** ctime, mtime (seconds, nanoseconds), dev, ino, mode, uid, gid, size: 4 bytes each, then the object id and 2 bytes of flags. */
const FIXED_BYTES = 40 + OID_BYTES + 2;
const EXTENDED_FLAG = 0x4000;
const SKIP_WORKTREE = 0x4000;
/** The merge stage (0: not conflicted) and the assume-unchanged bit of an entry's flags. */
const STAGE_MASK = 0x3000;
const ASSUME_VALID = 0x8000;

/**
 * The paths git tracks in a work tree, read from its index file directly (format versions 2–4,
 * SHA-1 repositories): what `git ls-files --stage` lists, without starting git, so a fork can
 * begin copying tracked files while git still walks the directory for untracked ones. Each path
 * once (a conflicted path has several stages), in the index's order (sorted by path bytes).
 *
 * Returns null whenever the file is not one this reader can take at its word — missing, its
 * checksum wrong or skipped (`index.skipHash`), a SHA-256 repository, an unknown version, a split
 * index (`link`: the entries live in another file), a sparse index or sparse checkout (directory
 * entries, skip-worktree bits) — and the caller asks git instead.
 */
export function readIndexEntries(indexPath: string): IndexEntry[] | null {
  return readIndexFile(indexPath)?.entries ?? null;
}

/** An index file as read by {@link readIndexFile}. */
export interface IndexFile {
  /** The file's bytes, checksum included. */
  data: Buffer;
  /** The file's modification time in whole seconds: git takes an entry whose file changed in that second or later as racily clean. */
  mtimeSeconds: number;
  /** Each path once, as {@link readIndexEntries} lists them. */
  entries: IndexEntry[];
  /** For each of `entries`, where its entry starts in `data` when it is a single stage-0 entry without extended flags; else -1. */
  offsets: number[];
}

/** {@link readIndexEntries} with the file's bytes and where each entry lies in them (null in the same cases). */
export function readIndexFile(indexPath: string): IndexFile | null {
  let data: Buffer;
  let mtimeSeconds: number;
  try {
    const fd = openSync(indexPath, 'r');
    try {
      mtimeSeconds = Math.floor(fstatSync(fd).mtimeMs / 1000);
      data = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
  if (data.length < 12 + OID_BYTES || data.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const body = data.length - OID_BYTES;
  if (!createHash('sha1').update(data.subarray(0, body)).digest().equals(data.subarray(body))) return null;
  const count = data.readUInt32BE(8);
  const entries: IndexEntry[] = [];
  const offsets: number[] = [];
  let offset = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let index = 0; index < count; index++) {
    if (offset + FIXED_BYTES > body) return null;
    const start = offset;
    const mode = data.readUInt32BE(offset + 24);
    const flags = data.readUInt16BE(offset + 40 + OID_BYTES);
    let cursor = offset + FIXED_BYTES;
    if (flags & EXTENDED_FLAG) {
      if (version < 3) return null;
      if (data.readUInt16BE(cursor) & SKIP_WORKTREE) return null;
      cursor += 2;
    }
    let name: Buffer;
    if (version === 4) {
      // The name is the previous one minus its last `strip` bytes, then a NUL-terminated suffix; no padding.
      let strip = 0;
      let byte: number;
      do {
        byte = data[cursor++]!;
        strip = (strip << 7) | (byte & 0x7f);
        if (byte & 0x80) strip++;
      } while (byte & 0x80);
      const end = data.indexOf(0, cursor);
      if (end === -1 || end >= body || strip > previous.length) return null;
      name = Buffer.concat([previous.subarray(0, previous.length - strip), data.subarray(cursor, end)]);
      offset = end + 1;
    } else {
      const end = data.indexOf(0, cursor);
      if (end === -1 || end >= body) return null;
      name = data.subarray(cursor, end);
      // Entries are padded with 1–8 NULs to a multiple of 8 bytes from their start.
      offset += Math.ceil((end + 1 - offset) / 8) * 8;
    }
    // A directory entry belongs to a sparse index.
    if ((mode & 0o170000) === 0o040000) return null;
    const plain = (flags & (STAGE_MASK | EXTENDED_FLAG | ASSUME_VALID)) === 0;
    if (!name.equals(previous)) {
      entries.push({ mode: mode.toString(8).padStart(6, '0'), path: name.toString('utf8') });
      offsets.push(plain ? start : -1);
    } else offsets[offsets.length - 1] = -1;
    previous = name;
  }
  for (let cursor = offset; cursor + 8 <= body; ) {
    const signature = data.toString('latin1', cursor, cursor + 4);
    if (signature === 'link' || signature === 'sdir') return null;
    cursor += 8 + data.readUInt32BE(cursor + 4);
  }
  return { data, mtimeSeconds, entries, offsets };
}
