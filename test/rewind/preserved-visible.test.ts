import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionWorkspace } from '../../src/checkpoint/index.js';
import { hashContent, WaypointError } from '../../src/model/index.js';
import { rewindStatus } from '../../src/operations/index.js';
import { FileRewinder, listPreserved, restorePreserved, RewindConflictError } from '../../src/rewind/index.js';
import { RewindHarness } from '../fixtures/rewind-harness.js';

// A person saves one file over and over (temp file + rename, as editors do, as fast as it can) in
// another process while this one rewinds the agent's change to it, round after round. Each apply
// compares the file by taking it off its path: when the person's next save lands in that empty
// instant, the save just taken cannot go back, and the apply keeps it aside (stored, pinned). Such
// a save must not be hidden: the conflict lists it with where it is kept, the session records it,
// its rewind status shows it, and it can be put back.
const seed = Number(process.env.WAYPOINT_TEST_SEED ?? 10010);
const ROUNDS = 2000;

const hammer = `
  const { renameSync, writeFileSync } = require('node:fs');
  const [target, ms, seed] = process.argv.slice(1);
  const end = Date.now() + Number(ms);
  let saves = 0;
  while (Date.now() < end) {
    const staged = target + '.' + saves + '.staged';
    writeFileSync(staged, 'person ' + seed + ' ' + saves + '\\n');
    renameSync(staged, target);
    saves++;
  }
  console.log('saves ' + saves);
`;

function pinnedAside(storePath: string): Array<{ owner: string; hash: string }> {
  const db = new Database(storePath, { readonly: true, fileMustExist: true });
  try {
    // A pin set is one row: whole hashes (32 bytes each) and, for blobs indexed when pinned, their
    // 8-byte prefixes, each standing for the indexed blobs that start with it.
    const sets = db.prepare("SELECT owner, hashes, prefixes FROM blob_pins WHERE owner LIKE '%rewind-preserved%' OR owner LIKE '%:preserved'").all() as Array<{
      owner: string;
      hashes: Buffer;
      prefixes: Buffer;
    }>;
    const byPrefix = db.prepare('SELECT lower(hex(hash)) FROM blob_index WHERE substr(hash, 1, 8) = ?').pluck();
    return sets.flatMap(({ owner, hashes, prefixes }) => [
      ...Array.from({ length: hashes.length / 32 }, (_, index) => ({ owner, hash: hashes.toString('hex', index * 32, index * 32 + 32) })),
      ...Array.from({ length: prefixes.length / 8 }, (_, index) =>
        (byPrefix.all(prefixes.subarray(index * 8, index * 8 + 8)) as string[]).map((hash) => ({ owner, hash })),
      ).flat(),
    ]);
  } finally {
    db.close();
  }
}

describe('a save a refused rewind keeps aside', () => {
  let h: RewindHarness;
  beforeAll(async () => {
    h = await RewindHarness.create('waypoint-preserved-');
  });
  afterAll(async () => {
    await h?.cleanup();
  });

  it(`is listed by the conflict and the rewind status, on record, and can be put back (seed ${seed})`, async () => {
    h.put('doc.txt', 'base\n');
    const turn = await h.turn('change the doc');
    const checkpoint = await h.recordWrite(turn, 'doc.txt', 'agent\n');
    const person = spawn(process.execPath, ['-e', hammer, h.path('doc.txt'), '5000', String(seed)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let personOut = '';
    person.stdout.on('data', (chunk) => (personOut += chunk));
    const done = new Promise<void>((resolve) => person.on('exit', () => resolve()));
    const rewinder = new FileRewinder({ store: h.store, blobs: h.blobs });
    const listed = new Map<string, string>();
    const outcomes = { applied: 0, conflict: 0, keptAside: 0, other: 0 };
    for (let round = 0; round < ROUNDS && person.exitCode === null; round++) {
      try {
        await rewinder.restoreCheckpoint(checkpoint.id);
        outcomes.applied++;
        // Applied over a save: redo puts the agent's content back so the next round rewinds again.
        await h.recordWrite(turn, 'doc.txt', 'agent\n');
      } catch (error) {
        if (error instanceof RewindConflictError) {
          outcomes.conflict++;
          for (const item of error.preserved) {
            outcomes.keptAside++;
            listed.set(item.hash, item.path);
            expect(error.message, `seed ${seed}`).toContain(item.hash.slice(0, 12));
          }
        } else if (WaypointError.is(error)) outcomes.other++;
        else throw error;
      }
    }
    await done;
    const context = `seed ${seed}: ${JSON.stringify(outcomes)}, person ${personOut.trim()}`;
    const pinned = pinnedAside(h.storePath);
    // Every save kept aside under a pin was named by the conflict that kept it, and is on record.
    const recorded = await listPreserved(h.store, h.session.id);
    for (const pin of pinned) {
      expect(listed.has(pin.hash), `${context}: ${pin.owner} keeps ${pin.hash} but no conflict listed it`).toBe(true);
      expect(
        recorded.some((save) => save.hash === pin.hash),
        `${context}: ${pin.hash} is kept but not on record`,
      ).toBe(true);
    }
    expect(pinned.length, `${context}: no save was kept aside in ${ROUNDS} rounds`).toBeGreaterThan(0);

    // The session's rewind status shows them; one goes back at its path, and what was there is kept for a redo.
    const status = await rewindStatus({ waypoint: { store: h.store, blobs: h.blobs } as never }, { sessionId: h.session.id });
    expect(status.preserved.map((save) => save.hash).sort(), context).toEqual(recorded.map((save) => save.hash).sort());
    const save = recorded[0]!;
    const there = readFileSync(h.path('doc.txt'));
    const restored = await restorePreserved({
      store: h.store,
      blobs: h.blobs,
      workspace: sessionWorkspace(h.session, h.store.location),
      sessionId: h.session.id,
      rewindId: save.rewindId,
      path: save.path,
    });
    expect(hashContent(readFileSync(h.path('doc.txt'))), context).toBe(save.hash);
    expect(restored.files).toEqual([expect.objectContaining({ fromHash: hashContent(there), toHash: save.hash })]);
    expect((await listPreserved(h.store, h.session.id)).find((item) => item.rewindId === save.rewindId && item.path === save.path)?.restored).toBe(true);
    await expect(
      restorePreserved({
        store: h.store,
        blobs: h.blobs,
        workspace: sessionWorkspace(h.session, h.store.location),
        sessionId: h.session.id,
        rewindId: 'jnl_none',
        path: save.path,
      }),
    ).rejects.toMatchObject({ code: 'PRESERVED_NOT_FOUND' });
    console.log(`kept aside (seed ${seed}): ${JSON.stringify(outcomes)}, ${pinned.length} pinned`);
  }, 60_000);
});
