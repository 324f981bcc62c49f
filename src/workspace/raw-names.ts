import { lstatSync, readdirSync, type Dirent } from 'node:fs';

/**
 * Directory entries whose names are not valid UTF-8. Node gives such names as strings with each
 * bad byte replaced by U+FFFD, which name no file (an lstat of it fails), so a scan that used them
 * would see neither the file nor its creation or deletion. They are listed again as bytes and
 * given a reversible escaped name instead: valid characters kept, `\` as `\\`, each byte that is
 * not part of a valid sequence as `\xHH`.
 */
export interface RawNameEntry {
  /** The escaped name (`caf\xe9.txt`). */
  name: string;
  isDirectory: boolean;
}

/** Whether a listing needs the byte re-read: some name holds the replacement character. */
export function mayHoldInvalidNames(entries: readonly Dirent[]): boolean {
  for (const entry of entries) if (entry.name.includes('\uFFFD')) return true;
  return false;
}

/**
 * Splits a listing of `directory` into entries with valid names (the string `entries`, minus the
 * lossy decodings of invalid ones) and the invalid ones, escaped.
 */
export function separateInvalidNames(directory: string, entries: Dirent[]): { valid: Dirent[]; invalid: RawNameEntry[] } {
  let raw: Dirent<Buffer>[];
  try {
    raw = readdirSync(directory, { withFileTypes: true, encoding: 'buffer' });
  } catch {
    return { valid: entries, invalid: [] };
  }
  const validNames = new Set<string>();
  const invalid: RawNameEntry[] = [];
  for (const entry of raw) {
    const bytes = entry.name;
    const decoded = bytes.toString('utf8');
    if (Buffer.from(decoded, 'utf8').equals(bytes)) validNames.add(decoded);
    else invalid.push({ name: escapeName(bytes), isDirectory: entry.isDirectory() });
  }
  return { valid: entries.filter((entry) => !entry.name.includes('\uFFFD') || validNames.has(entry.name)), invalid };
}

/** The reversible escaped form of a name's bytes (see {@link RawNameEntry}). */
export function escapeName(bytes: Buffer): string {
  let out = '';
  let index = 0;
  while (index < bytes.length) {
    const length = sequenceLength(bytes, index);
    if (length === 0) {
      out += `\\x${bytes[index]!.toString(16).padStart(2, '0')}`;
      index++;
      continue;
    }
    const text = bytes.subarray(index, index + length).toString('utf8');
    out += text === '\\' ? '\\\\' : text;
    index += length;
  }
  return out;
}

/** The bytes an escaped name stands for. */
export function unescapeName(name: string): Buffer {
  const parts: Buffer[] = [];
  let literal = '';
  for (let index = 0; index < name.length; index++) {
    const char = name[index]!;
    if (char === '\\' && name[index + 1] === '\\') {
      literal += '\\';
      index++;
    } else if (char === '\\' && name[index + 1] === 'x' && /^[0-9a-f]{2}$/.test(name.slice(index + 2, index + 4))) {
      parts.push(Buffer.from(literal, 'utf8'), Buffer.from([parseInt(name.slice(index + 2, index + 4), 16)]));
      literal = '';
      index += 3;
    } else {
      literal += char;
    }
  }
  parts.push(Buffer.from(literal, 'utf8'));
  return Buffer.concat(parts);
}

/** A stat signature of `directory/<raw name>` (kind, size, times, inode), or null when it is gone. */
export function rawEntrySignature(directory: string, escaped: string): string | null {
  try {
    const stats = lstatSync(Buffer.concat([Buffer.from(`${directory}/`, 'utf8'), unescapeName(escaped)]));
    const kind = stats.isDirectory() ? 'dir' : stats.isSymbolicLink() ? 'symlink' : stats.isFile() ? 'file' : 'special';
    return `${kind}:${stats.size}:${stats.mode & 0o7777}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}`;
  } catch {
    return null;
  }
}

/** Length of the valid UTF-8 sequence starting at `index`, or 0 when the byte there starts none. */
function sequenceLength(bytes: Buffer, index: number): number {
  const first = bytes[index]!;
  if (first < 0x80) return 1;
  let length: number;
  let min: number;
  if (first >= 0xc2 && first <= 0xdf) [length, min] = [2, 0x80];
  else if (first >= 0xe0 && first <= 0xef) [length, min] = [3, 0x800];
  else if (first >= 0xf0 && first <= 0xf4) [length, min] = [4, 0x10000];
  else return 0;
  if (index + length > bytes.length) return 0;
  let code = first & (0xff >> (length + 1));
  for (let offset = 1; offset < length; offset++) {
    const next = bytes[index + offset]!;
    if ((next & 0xc0) !== 0x80) return 0;
    code = (code << 6) | (next & 0x3f);
  }
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return length;
}
