import { randomBytes } from 'node:crypto';

/** Readable prefixes, one per kind of record, so an id says what it names. */
export const ID_PREFIXES = {
  session: 'ses',
  message: 'msg',
  part: 'prt',
  turn: 'trn',
  entry: 'ent',
  checkpoint: 'chk',
  journal: 'jnl',
  effect: 'eff',
  command: 'cmd',
  tree: 'tre',
  sweep: 'swp',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ID_BODY = /^[0-9a-z]{26}$/;
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

let lastTime = 0;
let counter = 0;

/**
 * A new time-ordered unique id such as `msg_01jd8x…`: 10 characters of millisecond time, then a
 * per-process counter and randomness. Ids of one process sort in creation order even within the
 * same millisecond; ids of different processes sort by time.
 *
 * @example newId('session') // 'ses_01jd8x3k7m0000a9f2c4q8rt6w'
 */
export function newId(kind: IdKind, now: number = Date.now()): string {
  if (now > lastTime) {
    lastTime = now;
    counter = 0;
  } else {
    counter += 1;
    if (counter >= 32 ** 4) {
      // More than a million ids in one millisecond: borrow the next millisecond.
      lastTime += 1;
      counter = 0;
    }
  }
  return `${ID_PREFIXES[kind]}_${encode(lastTime, 10)}${encode(counter, 4)}${randomPart(12)}`;
}

/** True when `value` looks like an id of `kind` (it may still name nothing). */
export function isId(kind: IdKind, value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const prefix = `${ID_PREFIXES[kind]}_`;
  return value.startsWith(prefix) && ID_BODY.test(value.slice(prefix.length));
}

/** The millisecond timestamp an id was minted at. */
export function idTime(id: string): number {
  const body = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11);
  let value = 0;
  for (const char of body) value = value * 32 + ALPHABET.indexOf(char);
  return value;
}

function encode(value: number, length: number): string {
  let out = '';
  let rest = value;
  for (let index = 0; index < length; index++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function randomPart(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % 32];
  return out;
}
