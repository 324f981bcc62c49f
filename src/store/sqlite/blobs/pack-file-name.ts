import { randomBytes } from 'node:crypto';

const PACK_NAME = /^pack-[0-9a-z]+-(\d+)-[0-9a-f]{8}(\.raw)?\.pack$/;

/**
 * What a pack holds. `packed`: blobs encoded for good (deflated, delta or raw because deflate did
 * not pay). `staging`: whole blobs written raw without trying deflate (the fast path of large
 * batches); the recompress pass moves them into a `packed` pack and removes the staging file.
 */
export type PackKind = 'packed' | 'staging';

/**
 * A pack file name no other writer can produce: creation time, writer pid and random bits
 * (`pack-lq3k2m-4242-9f1c0a7e.pack`; staging packs end in `.raw.pack`). Each process appends only
 * to packs it named itself.
 */
export function newPackFileName(pid: number = process.pid, kind: PackKind = 'packed'): string {
  return `pack-${Date.now().toString(36)}-${pid}-${randomBytes(4).toString('hex')}${kind === 'staging' ? '.raw' : ''}.pack`;
}

/** True for the names of staging packs (raw blobs waiting for the recompress pass). */
export function isStagingPackName(name: string): boolean {
  return PACK_NAME.test(name) && name.endsWith('.raw.pack');
}

/** True for names made by `newPackFileName` (everything else in the pack directory is left alone). */
export function isPackFileName(name: string): boolean {
  return PACK_NAME.test(name);
}

export { isProcessAlive } from '../../../model/index.js';
