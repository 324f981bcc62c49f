import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RewindHarness } from '../fixtures/rewind-harness.js';
import { RewindWorker, seededRandom } from '../fixtures/rewind-worker-client.js';

// A person saves files (temp file + rename, as editors do) while another process applies a
// three-file rewind of the agent's changes to them, round after round, the person's saves timed
// at random around the apply. Whatever the interleaving: a file the person saved holds the
// person's last save (never the agent's old content over it, and no save lost); a file the
// person left alone holds the rewound content if the apply reported success, or what it held
// before if it reported a conflict ("nothing was changed" is then true); and the ledger agrees.
const ROUNDS = 40;
const FILES = 3;
const seed = Number(process.env.WAYPOINT_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));

describe('a person saving files while a multi-file rewind applies (separate processes)', () => {
  let h: RewindHarness;
  let applier: RewindWorker;
  let person: RewindWorker;
  beforeAll(async () => {
    h = await RewindHarness.create('waypoint-person-');
    [applier, person] = await Promise.all([RewindWorker.start(h.storePath), RewindWorker.start(h.storePath)]);
  });
  afterAll(async () => {
    applier?.stop();
    person?.stop();
    await h?.cleanup();
  });

  it(`${ROUNDS} rounds: conflict means nothing changed, success means rewound, and the person's last save always wins (seed printed on failure)`, async () => {
    const random = seededRandom(seed);
    const outcomes = { applied: 0, conflict: 0, rolledBack: 0 };
    const applyMs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const context = `seed ${seed} (rerun with WAYPOINT_TEST_SEED=${seed}), round ${round}`;
      const names = Array.from({ length: FILES }, (_, index) => `round-${round}/f${index}.txt`);
      for (const [index, name] of names.entries()) h.put(name, `base ${round} ${index}\n`);
      const turn = await h.turn(`round ${round}`);
      for (const [index, name] of names.entries()) await h.recordWrite(turn, name, `agent ${round} ${index}\n`);
      const journalsBefore = (await h.store.listJournals()).length;
      const rewindsBefore = (await h.store.listEntries(h.session.id, { type: 'file-rewind' })).length;

      // The person's saves land around the apply: the first within about one apply's time, the rest soon after.
      const window = Math.min(40, Math.max(2, 1.5 * (median(applyMs) ?? 8)));
      const saves = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, index) => {
        const name = names[Math.floor(random() * FILES)]!;
        return {
          name,
          path: h.path(name),
          content: `person ${round} ${index} ${random().toString(36).slice(2)}\n`,
          delayMs: random() * (index === 0 ? window : window / 2),
        };
      });
      const [applied, saved] = await Promise.all([
        applier.send({ op: 'preview-apply', sessionId: h.session.id, turnId: turn.turnId }),
        person.send({ op: 'person', saves: saves.map(({ path, content, delayMs }) => ({ path, content, delayMs })) }),
      ]);
      expect(saved, context).toEqual({ ok: true, saved: saves.length });
      if (!('code' in applied) && 'ms' in applied) applyMs.push(applied.ms);
      if ('code' in applied) expect(applied.code, `${context}: ${applied.message}`).toBe('REWIND_CONFLICT');
      const ok = applied.ok;

      const lastSave = new Map(saves.map((save) => [save.name, save.content]));
      for (const [index, name] of names.entries()) {
        const expected = lastSave.get(name) ?? (ok ? `base ${round} ${index}\n` : `agent ${round} ${index}\n`);
        expect(
          h.read(name),
          `${context}: ${name} after ${ok ? 'success' : 'a conflict'}; saves ${JSON.stringify(saves.map((save) => [save.name, save.delayMs.toFixed(1)]))}`,
        ).toBe(expected);
      }
      // Nothing set aside is left behind (files taken off a path are put back or removed).
      expect(
        readdirSync(h.path(`round-${round}`)).filter((entry) => entry.startsWith('.')),
        context,
      ).toEqual([]);
      const recorded = (await h.store.listEntries(h.session.id, { type: 'file-rewind' })).length - rewindsBefore;
      expect(recorded, `${context}: the ledger records the rewind exactly when it succeeded`).toBe(ok ? 1 : 0);
      const journals = (await h.store.listJournals()).slice(journalsBefore);
      if (ok) {
        outcomes.applied++;
        expect(
          journals.map((journal) => journal.state),
          context,
        ).toEqual(['committed']);
      } else {
        outcomes.conflict++;
        expect(
          journals.every((journal) => journal.state === 'rolled_back'),
          context,
        ).toBe(true);
        if (journals.length > 0) outcomes.rolledBack++;
      }
    }
    console.log(`person saves during apply (seed ${seed}): ${JSON.stringify(outcomes)}, apply median ${median(applyMs)?.toFixed(1)} ms`);
    expect(outcomes.applied + outcomes.conflict).toBe(ROUNDS);
  }, 120_000);
});

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
