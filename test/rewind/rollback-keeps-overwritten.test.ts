import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { hashContent, WaypointError } from '../../src/model/index.js';
import { FILE_REWIND_ENTRY, FileRewinder, listPreserved, PRESERVED_ENTRY } from '../../src/rewind/files/index.js';
import type { Store } from '../../src/store/index.js';
import { killTrial, runTrials, seededRandom, testSeed } from '../fixtures/kill-trial.js';
import { RewindHarness } from '../fixtures/rewind-harness.js';

// A rewind that overwrites a person's saves no checkpoint records (resolved with `force`) names
// them only in its journal while it applies. If it then fails and rolls back, or is killed and
// recovery rolls it back, a path someone saved again meanwhile keeps that later save — and the
// save the rewind had overwritten must still be on record (kept aside, listed, restorable), as it
// would have been had the rewind never run and the later save replaced it. Before, it was named
// only by the rolled-back journal: no command showed it.
const FILES = ['a.txt', 'b.txt', 'c.txt', 'd.txt'];
const seed = testSeed(1010);
const TRIALS = 16;
const PARALLEL = 4;
const harnesses: RewindHarness[] = [];

afterAll(async () => {
  for (const h of harnesses) await h.cleanup();
});

/** Files with the agent's turn recorded over a base, then a person's save over each (not recorded). */
async function prepared(tag: string): Promise<{ h: RewindHarness; turnId: string; saves: Map<string, string> }> {
  const h = await RewindHarness.create('waypoint-rollback-keeps-');
  harnesses.push(h);
  for (const name of FILES) h.put(name, `base ${tag} ${name}\n`);
  const turn = await h.turn();
  for (const name of FILES) await h.recordWrite(turn, name, `agent ${tag} ${name}\n`);
  const saves = new Map(FILES.map((name) => [name, `person ${tag} ${name} first save\n`]));
  for (const [name, content] of saves) h.put(name, content);
  return { h, turnId: turn.turnId, saves };
}

/** A person's save as the soak's person makes it: whatever is at the path goes to the trash, then the new content. */
function personSaves(h: RewindHarness, name: string, content: string): void {
  const trash = join(h.dir, 'trash');
  mkdirSync(trash, { recursive: true });
  try {
    renameSync(h.path(name), join(trash, `${name}.${readdirSync(trash).length}`));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  writeFileSync(h.path(name), content);
}

/** Contents every record a person can see names: checkpoints, file-rewind entries, kept-aside saves. */
async function onRecord(store: Store, sessionId: string): Promise<Set<string>> {
  const seen = new Set<string>();
  for (const checkpoint of await store.listCheckpoints(sessionId)) for (const hash of [checkpoint.beforeHash, checkpoint.afterHash]) if (hash) seen.add(hash);
  for (const entry of await store.listEntries(sessionId, { type: FILE_REWIND_ENTRY })) {
    for (const file of (entry.data as { files: Array<{ fromHash: string | null; toHash: string | null }> }).files)
      for (const hash of [file.fromHash, file.toHash]) if (hash) seen.add(hash);
  }
  for (const entry of await store.listEntries(sessionId, { type: PRESERVED_ENTRY }))
    for (const file of (entry.data as { files: Array<{ hash: string }> }).files) seen.add(file.hash);
  return seen;
}

function trashed(h: RewindHarness): Set<string> {
  const trash = join(h.dir, 'trash');
  return new Set(readdirSync(trash).map((name) => hashContent(readFileSync(join(trash, name)))));
}

describe("a rolled-back rewind keeps the person's save it had overwritten", () => {
  it('when the apply is refused and a save landed on a path it had already written (in-process)', async () => {
    const { h, turnId, saves } = await prepared('refused');
    let first: string | null = null;
    const rewinder = new FileRewinder({
      store: h.store,
      blobs: h.blobs,
      hooks: {
        // After the first step: the person saves every file again, so the next step finds its file changed.
        afterStep: (path, index) => {
          if (index !== 0) return;
          first = path.slice(path.indexOf(':') + 1);
          for (const name of FILES) personSaves(h, name, `person refused ${name} second save\n`);
        },
      },
    });
    const resolutions = Object.fromEntries(FILES.map((name) => [`workspace:${name}`, 'force' as const]));
    const preview = await rewinder.preview({ sessionId: h.session.id, turnId, resolutions });
    const error = await rewinder.apply(preview).then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(WaypointError.is(error) && error.code, String(error)).toBe('REWIND_CONFLICT');
    expect(first).not.toBeNull();
    for (const name of FILES) expect(h.read(name)).toBe(`person refused ${name} second save\n`);
    // The first path's first save: overwritten by the apply, then the apply's file by the person — kept aside.
    const overwritten = hashContent(Buffer.from(saves.get(first!)!));
    const kept = await listPreserved(h.store, h.session.id);
    expect(
      kept.map((save) => [save.path, save.hash]),
      'the save the refused apply had overwritten is listed as kept aside',
    ).toContainEqual([`workspace:${first}`, overwritten]);
    expect((error as WaypointError & { details: { preserved?: Array<{ hash: string }> } }).details.preserved?.map((save) => save.hash)).toContain(overwritten);
    expect((await h.blobs.get(overwritten)).toString()).toBe(saves.get(first!));
    // Every first save is somewhere: in the trash (the person replaced it) or on record.
    const seen = await onRecord(h.store, h.session.id);
    const trash = trashed(h);
    for (const [name, content] of saves) expect(trash.has(h.hash(content)) || seen.has(h.hash(content)), name).toBe(true);
  }, 60_000);

  it(`when the applying process is SIGKILLed and a save lands before recovery (${TRIALS} trials, seed printed)`, async () => {
    const next = seededRandom(seed);
    const trials = Array.from({ length: TRIALS }, (_, trial) => {
      const when = trial % 4 === 3 ? ('timed' as const) : ('landed' as const);
      return { trial, when, delayMs: when === 'timed' ? Math.floor(next() * 80) : Math.floor(next() * 3) };
    });
    const outcomes = { untouched: 0, rolledBack: 0, committed: 0 };
    const failures: string[] = [];
    await runTrials(trials, PARALLEL, async ({ trial, when, delayMs }) => {
      const where = `seed ${seed} (rerun with WAYPOINT_TEST_SEED=${seed}), trial ${trial}, killed ${delayMs} ms after ${when === 'timed' ? 'it was ready' : 'a file was rewound'}`;
      const { h, turnId, saves } = await prepared(`t${trial}`);
      await h.store.close();
      const killed = await killTrial({
        script: join(import.meta.dirname, '..', 'fixtures', 'forced-rewind-child.ts'),
        args: [h.storePath, h.session.id, turnId, FILES.join(',')],
        when,
        delayMs,
        landed: { dir: h.work, test: () => FILES.some((name) => h.read(name)?.startsWith('base ')) },
      });
      if (killed.ready === null) {
        failures.push(`${where}: the child never got ready (${killed.signal}): ${killed.stderr}`);
        return;
      }
      // The person saves every file again before anything opens the store.
      for (const name of FILES) personSaves(h, name, `person t${trial} ${name} second save\n`);
      const waypoint = await openWaypoint({ path: h.storePath });
      try {
        const journals = await waypoint.store.listJournals();
        const state = journals[0]?.state;
        if (state === undefined) outcomes.untouched++;
        else if (state === 'rolled_back') outcomes.rolledBack++;
        else if (state === 'committed') outcomes.committed++;
        else failures.push(`${where}: the journal is ${state} after recovery`);
        for (const name of FILES)
          if (h.read(name) !== `person t${trial} ${name} second save\n`) failures.push(`${where}: ${name} does not hold the person's last save`);
        const seen = await onRecord(waypoint.store, h.session.id);
        const trash = trashed(h);
        for (const [name, content] of saves) {
          const hash = h.hash(content);
          if (trash.has(hash)) continue;
          if (!seen.has(hash)) failures.push(`${where} (journal ${state}): the person's first save of ${name} is on no record and not in the trash`);
          else if (!(await waypoint.blobs.get(hash)).equals(Buffer.from(content))) failures.push(`${where}: the first save of ${name} reads back wrong`);
        }
      } finally {
        await waypoint.close();
      }
    });
    expect(failures, `outcomes ${JSON.stringify(outcomes)}`).toEqual([]);
    console.log(`rollback keeps overwritten saves (seed ${seed}): ${JSON.stringify(outcomes)}`);
    // Kills that land while the rewind applies are the case under test.
    expect(outcomes.rolledBack, `seed ${seed}: outcomes ${JSON.stringify(outcomes)}`).toBeGreaterThan(0);
  }, 300_000);
});
