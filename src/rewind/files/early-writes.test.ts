import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RewindHarness } from '../../../test/fixtures/rewind-harness.js';
import { sessionWorkspace } from '../../checkpoint/session-workspace.js';
import { type Checkpoint, hashContent, WaypointError } from '../../model/index.js';
import { BlobStore } from '../../blobs/index.js';
import { WRITTEN_HERE_MAX_BYTES } from './apply-step.js';
import { planDirect } from './direct-rewind-plan.js';
import { EarlyWrites } from './early-writes.js';
import type { FileRewinder } from './file-rewinder.js';
import { journaledApply } from './journaled-apply.js';
import type { PlannedStep } from './rewind-plan.js';
import { SnapshotReader } from './snapshot-reader.js';

/** Waypoint's own hidden names (temp files, parked files) anywhere under `dir`. */
function ownHiddenFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => /\.wp-(tmp|old)$/.test(name));
}

describe('temp files begun while a direct rewind is planned', () => {
  let h: RewindHarness;
  let rewinder: FileRewinder;
  beforeEach(async () => ({ h, rewinder } = await RewindHarness.withRewinder()));
  afterEach(() => h.cleanup());

  /** A direct cascade plan of `turn`'s changes (`newestFirst`), with its early writes, not applied. */
  async function planWithEarly(turn: { messageId: string }, newestFirst: Checkpoint[]) {
    const workspace = sessionWorkspace(h.session, h.store.location);
    const blobs = new BlobStore(h.store);
    const early = new EarlyWrites(true);
    const plan = await planDirect({
      session: h.session,
      target: { kind: 'cascade', messageId: turn.messageId },
      kind: 'cascade',
      newestFirst,
      workspace,
      snapshots: new SnapshotReader(blobs),
      overwriteChanged: true,
      early,
    });
    await early.settled();
    const apply = () =>
      journaledApply({
        store: h.store,
        blobs,
        workspace,
        sessionId: h.session.id,
        kind: 'cascade',
        action: 'rewind',
        undoes: null,
        checkpointIds: plan.simulation.undone,
        steps: plan.steps,
        early,
      }).finally(() => early.dispose());
    return { plan, early, apply };
  }

  it('a cascade puts every file back through them, a file changed twice at its oldest content, and leaves no temp file', async () => {
    for (let index = 0; index < 6; index++) h.put(`src/f${index}.txt`, `v0 ${index}\n`);
    const first = await h.turn();
    for (let index = 0; index < 6; index++) await h.recordWrite(first, `src/f${index}.txt`, `v1 ${index}\n`);
    const second = await h.turn();
    await h.recordWrite(second, 'src/f0.txt', 'v2 0\n');
    await h.recordWrite(second, 'src/new.txt', 'created\n');
    await rewinder.cascade(h.session.id, first.messageId);
    expect(h.files()).toEqual(Object.fromEntries(Array.from({ length: 6 }, (_, index) => [`src/f${index}.txt`, `v0 ${index}\n`])));
    expect(ownHiddenFiles(h.work)).toEqual([]);
  });

  it('a refused rewind (a changed file it may not overwrite) removes them and changes no file', async () => {
    for (let index = 0; index < 4; index++) h.put(`f${index}.txt`, `v0 ${index}\n`);
    const turn = await h.turn();
    for (let index = 0; index < 4; index++) await h.recordWrite(turn, `f${index}.txt`, `v1 ${index}\n`);
    h.put('f2.txt', 'the person edited this\n');
    const refused = await rewinder.cascade(h.session.id, turn.messageId, { overwriteChanged: false }).catch((error: unknown) => error);
    expect(WaypointError.is(refused, 'REWIND_OVERWRITES_CHANGES')).toBe(true);
    expect(h.files()).toEqual({ 'f0.txt': 'v1 0\n', 'f1.txt': 'v1 1\n', 'f2.txt': 'the person edited this\n', 'f3.txt': 'v1 3\n' });
    expect(ownHiddenFiles(h.work)).toEqual([]);
  });

  it('a save that lands after the temp files were begun is not overwritten: the apply compares each file and refuses', async () => {
    h.put('a.txt', 'v0 a\n');
    h.put('b.txt', 'v0 b\n');
    const turn = await h.turn();
    const checkpoints = [await h.recordWrite(turn, 'a.txt', 'v1 a\n'), await h.recordWrite(turn, 'b.txt', 'v1 b\n')];
    const { apply } = await planWithEarly(turn, [...checkpoints].reverse());
    expect(ownHiddenFiles(h.work)).toHaveLength(2);
    // The person saves b.txt between the plan (which read v1, and began both temp files) and the apply.
    h.put('b.txt', 'the person saved this\n');
    const outcome = await apply().catch((error: unknown) => error);
    expect(WaypointError.is(outcome, 'REWIND_CONFLICT')).toBe(true);
    expect(h.files()).toEqual({ 'a.txt': 'v1 a\n', 'b.txt': 'the person saved this\n' });
    expect(ownHiddenFiles(h.work)).toEqual([]);
  });

  it('a step takes only the write begun for its exact path, content and mode; dispose removes the rest', async () => {
    h.put('a.txt', 'now\n');
    const workspace = sessionWorkspace(h.session, h.store.location);
    const resolved = workspace.resolveKey('workspace:a.txt', { followLink: false });
    const early = new EarlyWrites(true);
    early.begin(resolved, h.hash('back\n'), Buffer.from('back\n'), 0o644);
    const step = (hash: string, mode: number) => ({ path: 'workspace:a.txt', resolved, target: { exists: true, hash, mode } }) as unknown as PlannedStep;
    expect(early.take(step(h.hash('other\n'), 0o644))).toBeUndefined();
    expect(early.take(step(h.hash('back\n'), 0o755))).toBeUndefined();
    await early.dispose();
    expect(ownHiddenFiles(h.work)).toEqual([]);
    expect(h.read('a.txt')).toBe('now\n');

    const again = new EarlyWrites(true);
    again.begin(resolved, h.hash('back\n'), Buffer.from('back\n'), 0o644);
    const taken = await again.take(step(h.hash('back\n'), 0o644));
    expect(again.take(step(h.hash('back\n'), 0o644))).toBeUndefined();
    await again.dispose();
    // Taken: the caller owns it; dispose leaves it, and its commit puts the content in place.
    expect(ownHiddenFiles(h.work)).toHaveLength(1);
    taken!.commit();
    expect(readFileSync(h.path('a.txt'), 'utf8')).toBe('back\n');
    expect(ownHiddenFiles(h.work)).toEqual([]);
  });

  it('a renamed file changed after the rename gets its old content back at its old path through one; a plain rename is moved back with none', async () => {
    h.put('src/kept.ts', 'kept before\n');
    h.put('src/plain.ts', 'plain\n');
    const turn = await h.turn();
    const renamed = await h.recordRename(turn, 'src/kept.ts', 'lib/kept.ts');
    const changed = await h.recordWrite(turn, 'lib/kept.ts', 'kept after the rename\n');
    const plain = await h.recordRename(turn, 'src/plain.ts', 'lib/plain.ts');
    const { plan, apply } = await planWithEarly(turn, [plain, changed, renamed]);
    // Begun while planning: the old content at the old path, and nothing for the plain rename.
    expect(ownHiddenFiles(h.work).map((name) => name.replace(/\.[0-9a-f]{12}\.wp-tmp$/, ''))).toEqual(['src/.kept.ts']);
    expect(plan.steps.find((step) => step.path === 'workspace:src/plain.ts')?.moveFrom).toBe('workspace:lib/plain.ts');
    await apply();
    expect(h.files()).toEqual({ 'src/kept.ts': 'kept before\n', 'src/plain.ts': 'plain\n' });
    expect(ownHiddenFiles(h.work)).toEqual([]);
  });

  it('small contents are written at once, before begin returns; a large one in the thread pool; both go back in place', async () => {
    const large = Buffer.alloc(WRITTEN_HERE_MAX_BYTES + 1, 7);
    h.put('small.txt', 'small before\n');
    writeFileSync(h.path('large.bin'), large);
    const workspace = sessionWorkspace(h.session, h.store.location);
    const early = new EarlyWrites(true);
    early.begin(workspace.resolveKey('workspace:small.txt', { followLink: false }), h.hash('small back\n'), Buffer.from('small back\n'), 0o644);
    // No await yet: the small temp file exists already, with its content.
    const [temp] = ownHiddenFiles(h.work);
    expect(readFileSync(h.path(temp!), 'utf8')).toBe('small back\n');
    early.begin(workspace.resolveKey('workspace:large.bin', { followLink: false }), hashContent(large), large, 0o644);
    await early.settled();
    expect(ownHiddenFiles(h.work)).toHaveLength(2);
    await early.dispose();
    expect(ownHiddenFiles(h.work)).toEqual([]);

    const turn = await h.turn();
    const checkpoints = [await h.recordWrite(turn, 'small.txt', 'small after\n'), await h.recordWrite(turn, 'large.bin', 'large after\n')];
    const { apply } = await planWithEarly(turn, [...checkpoints].reverse());
    expect(ownHiddenFiles(h.work)).toHaveLength(2);
    await apply();
    expect(h.read('small.txt')).toBe('small before\n');
    expect(readFileSync(h.path('large.bin')).equals(large)).toBe(true);
    expect(ownHiddenFiles(h.work)).toEqual([]);
  });
});
