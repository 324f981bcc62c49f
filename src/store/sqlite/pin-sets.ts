import type Database from 'better-sqlite3';
import { InvalidArgumentError } from '../../model/index.js';
import type { SqliteContext } from './sqlite-context.js';

/**
 * Pin sets: one row per owner. A pinned hash whose blob is indexed when it is pinned is kept as
 * its first `PREFIX_BYTES` bytes (`prefixes`), any other as its 32 bytes (`hashes`, e.g. a blob
 * pinned before it is stored). A prefix stands for every indexed blob that starts with it, so the
 * roots it gives are the pinned blob and, rarely, another blob GC then keeps too: never fewer. A
 * scan state that pins a workspace's 2,000 files takes 16 KB instead of 64 KB.
 *
 * Only an explicit delete (`BlobStorage.deleteMany`) takes a pinned blob out of the index, and GC
 * never deletes one (its sweep reads the roots in its own transaction); a prefix whose blob was
 * deleted that way names nothing, as a pinned hash of a deleted blob names nothing readable.
 */
export const PREFIX_BYTES = 8;

const HASH_PATTERN = /^[0-9a-f]{64}$/;

/** Prepares (or takes from a cache) a statement: `SqliteContext#statement`, or the database's own `prepare` in a migration. */
type Prepare = (sql: string) => Database.Statement;

export function setBlobPins(context: SqliteContext, owner: string, hashes: readonly string[]): void {
  const distinct = validHashes(hashes);
  context.write('pin blobs', () => writePinSet(prepareOf(context), owner, splitByIndex(prepareOf(context), distinct)));
}

export function addBlobPins(context: SqliteContext, owner: string, hashes: readonly string[]): void {
  if (hashes.length === 0) return;
  validHashes(hashes);
  context.write('pin blobs', () => addPinsIn(context, owner, hashes));
}

/** `addBlobPins` inside the caller's write transaction. */
export function addPinsIn(context: SqliteContext, owner: string, hashes: readonly string[]): void {
  if (hashes.length === 0) return;
  const prepare = prepareOf(context);
  const added = splitByIndex(prepare, validHashes(hashes));
  const row = prepare('SELECT hashes, prefixes FROM blob_pins WHERE owner = ?').get(owner) as PinSetRow | undefined;
  writePinSet(prepare, owner, {
    hashes: distinctEntries(row?.hashes, added.hashes, 32),
    prefixes: distinctEntries(row?.prefixes, added.prefixes, PREFIX_BYTES),
  });
}

/** Adds every pinned hash to `roots`: the whole ones as they are, each prefix as the indexed blobs that start with it. */
export function addPinRoots(context: SqliteContext, roots: Set<string>): void {
  const byPrefix = context.statement('SELECT hash FROM blob_index WHERE hash BETWEEN ? AND ?').pluck();
  const low = Buffer.alloc(32, 0);
  const high = Buffer.alloc(32, 0xff);
  for (const row of context.statement('SELECT hashes, prefixes FROM blob_pins').all() as PinSetRow[]) {
    for (let offset = 0; offset + 32 <= row.hashes.length; offset += 32) roots.add(row.hashes.toString('hex', offset, offset + 32));
    for (let offset = 0; offset + PREFIX_BYTES <= row.prefixes.length; offset += PREFIX_BYTES) {
      row.prefixes.copy(low, 0, offset, offset + PREFIX_BYTES);
      row.prefixes.copy(high, 0, offset, offset + PREFIX_BYTES);
      for (const hash of byPrefix.all(low, high) as Buffer[]) roots.add(hash.toString('hex'));
    }
  }
}

/**
 * Migration 8's part for pins: the `prefixes` column, and every pinned hash whose blob is indexed
 * moved into it as its prefix (runs inside the opening transaction).
 */
export function splitPinSets(db: Database.Database): void {
  db.exec("ALTER TABLE blob_pins ADD COLUMN prefixes BLOB NOT NULL DEFAULT x''");
  const prepare: Prepare = (sql) => db.prepare(sql);
  for (const row of db.prepare('SELECT owner, hashes FROM blob_pins').all() as Array<{ owner: string; hashes: Buffer }>) {
    const hashes: string[] = [];
    for (let offset = 0; offset + 32 <= row.hashes.length; offset += 32) hashes.push(row.hashes.toString('hex', offset, offset + 32));
    writePinSet(prepare, row.owner, splitByIndex(prepare, hashes));
  }
}

interface PinSetRow {
  hashes: Buffer;
  prefixes: Buffer;
}

/** Indexed hashes as prefixes, the others whole, each as bytes end to end. */
function splitByIndex(prepare: Prepare, hashes: readonly string[]): PinSetRow {
  const indexed = new Set(
    prepare('SELECT lower(hex(hash)) FROM blob_index WHERE hash IN (SELECT unhex(value) FROM json_each(?))').pluck().all(JSON.stringify(hashes)) as string[],
  );
  const whole = hashes.filter((hash) => !indexed.has(hash));
  const prefixes = new Set(hashes.filter((hash) => indexed.has(hash)).map((hash) => hash.slice(0, 2 * PREFIX_BYTES)));
  return { hashes: Buffer.from(whole.join(''), 'hex'), prefixes: Buffer.from([...prefixes].join(''), 'hex') };
}

/** The entries of `before` and `added` (each `width` bytes), each once, in that order. */
function distinctEntries(before: Buffer | undefined, added: Buffer, width: number): Buffer {
  const seen = new Set<string>();
  const entries: Buffer[] = [];
  for (const packed of [before ?? Buffer.alloc(0), added]) {
    for (let offset = 0; offset + width <= packed.length; offset += width) {
      const key = packed.toString('hex', offset, offset + width);
      if (seen.has(key)) continue;
      seen.add(key);
      entries.push(packed.subarray(offset, offset + width));
    }
  }
  return Buffer.concat(entries);
}

function writePinSet(prepare: Prepare, owner: string, set: PinSetRow): void {
  if (set.hashes.length === 0 && set.prefixes.length === 0) prepare('DELETE FROM blob_pins WHERE owner = ?').run(owner);
  else
    prepare(
      'INSERT INTO blob_pins (owner, hashes, prefixes) VALUES (?, ?, ?) ON CONFLICT (owner) DO UPDATE SET hashes = excluded.hashes, prefixes = excluded.prefixes',
    ).run(owner, set.hashes, set.prefixes);
}

function prepareOf(context: SqliteContext): Prepare {
  return (sql) => context.statement(sql);
}

/** Distinct hashes; refuses anything that is not a lowercase sha256 in hex. */
function validHashes(hashes: readonly string[]): string[] {
  const distinct = [...new Set(hashes)];
  for (const hash of distinct) {
    if (!HASH_PATTERN.test(hash))
      throw new InvalidArgumentError({ parameter: 'hashes', value: hash, reason: 'a pinned hash must be a sha256 in lowercase hex' });
  }
  return distinct;
}
