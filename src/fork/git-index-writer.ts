import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CHECKSUM_BYTES = 20;

/**
 * Writes the index of the linked work tree registered at `registration`: `bytes` is the parent's
 * index file (versions 2–4, SHA-1, as {@link readIndexFile} accepts it) with the stat data of
 * some entries replaced by those of the fork's copies. Entries, extensions and their order stay
 * git's own; only the trailing SHA-1 is computed anew over everything before it, as git does when
 * it writes the file. Created exclusively: the registration is new and nobody else writes it.
 */
export function writeIndexCopy(registration: string, bytes: Uint8Array): void {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const body = data.length - CHECKSUM_BYTES;
  createHash('sha1').update(data.subarray(0, body)).digest().copy(data, body);
  writeFileSync(join(registration, 'index'), data, { flag: 'wx', mode: 0o644 });
}
