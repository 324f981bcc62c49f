import { createHash } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * A Waypoint id derived from `text`: `prefix_` and 26 Crockford base32 characters of its sha256.
 * The records an agent's hooks make (its session, a mirrored transcript line) get ids derived from
 * the agent's own ids, so every hook process finds them without a lookup and recording one twice
 * is detected.
 */
export function derivedId(prefix: string, text: string): string {
  const bytes = createHash('sha256').update(text).digest();
  let out = '';
  for (let index = 0; index < 26; index++) out += ALPHABET[bytes[index]! & 31];
  return `${prefix}_${out}`;
}
