import { randomFillSync } from 'node:crypto';

/** How much of a target's name the hidden files beside it keep (`.<name>.<12 hex>.wp-tmp`), so theirs stays a valid name. */
export const HIDDEN_NAME_KEPT = 180;

/** Random bytes drawn ahead, 6 at a time: one call into the system's generator per 680 names, not one per name. */
const pool = Buffer.alloc(4096);
let offset = pool.length;

/**
 * 12 random hex digits naming a temp or parked file beside its target (`.<name>.<12 hex>.wp-tmp`):
 * the same randomness as `randomBytes(6)`, drawn from a pool refilled as it runs out.
 */
export function tempId(): string {
  if (offset + 6 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('hex', offset, offset + 6);
  offset += 6;
  return id;
}
