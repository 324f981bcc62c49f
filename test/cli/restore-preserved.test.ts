import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashContent } from '../../src/model/index.js';
import { FileRewinder } from '../../src/rewind/files/index.js';
import { RewindHarness } from '../fixtures/rewind-harness.js';
import { snapshotTree } from '../fixtures/snapshot-tree.js';
import { runCli } from './cli-harness.js';

// `waypoint rewind <session> restore <rewindId|hash> [path]`: a save a refused rewind kept aside
// (listed by `rewind <session> status`) goes back to its path as a redoable rewind; unknown or
// ambiguous ids are typed refusals that change nothing.
describe('waypoint rewind <session> restore', () => {
  let h: RewindHarness;
  let home: string;
  const saves: Record<string, string> = { 'a.txt': 'person first save of a.txt\n', 'b.txt': 'person first save of b.txt\n' };
  const later = (name: string) => `person later save of ${name}\n`;
  /** The path the rewind wrote first: its first save is the one kept aside. */
  let kept = '';
  const cli = (...args: string[]) => runCli([...args, '--store', h.storePath], { home });

  beforeAll(async () => {
    h = await RewindHarness.create('waypoint-cli-restore-');
    home = join(h.dir, 'home');
    mkdirSync(home);
    for (const name of ['a.txt', 'b.txt']) h.put(name, `base ${name}\n`);
    const turn = await h.turn();
    for (const name of ['a.txt', 'b.txt']) await h.recordWrite(turn, name, `agent ${name}\n`);
    for (const [name, content] of Object.entries(saves)) h.put(name, content);
    // A rewind forced over both saves; after its first step the person saves both files again:
    // the second step is refused, and the first save of the path already written is kept aside.
    let done = false;
    const rewinder = new FileRewinder({
      store: h.store,
      blobs: h.blobs,
      hooks: {
        afterStep: (path) => {
          if (done) return;
          done = true;
          kept = path.slice(path.indexOf(':') + 1);
          for (const name of Object.keys(saves)) writeFileSync(h.path(name), later(name));
        },
      },
    });
    const resolutions = { 'workspace:a.txt': 'force' as const, 'workspace:b.txt': 'force' as const };
    const preview = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId, resolutions });
    await expect(rewinder.apply(preview)).rejects.toMatchObject({ code: 'REWIND_CONFLICT' });
    await h.store.close();
  }, 60_000);
  afterAll(() => h?.cleanup());

  it('status lists the kept-aside save with the command that puts it back; restore puts it back and redo undoes that', () => {
    const first = saves[kept]!;
    const hash = hashContent(Buffer.from(first));
    const status = cli('rewind', h.session.id, 'status');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`waypoint rewind ${h.session.id} restore ${hash.slice(0, 12)}`);
    const listed = cli('rewind', h.session.id, 'status', '--json').json().preserved as Array<{ hash: string; restored: boolean; rewindId: string }>;
    expect(listed.map((save) => [save.hash, save.restored])).toEqual([[hash, false]]);

    const restored = cli('rewind', h.session.id, 'restore', hash.slice(0, 12), '--json');
    expect(restored.code, restored.stderr).toBe(0);
    const result = restored.json();
    expect(result).toMatchObject({ type: 'preserved', sessionId: h.session.id, restored: { path: `workspace:${kept}`, hash, rewindId: listed[0]!.rewindId } });
    expect(readFileSync(h.path(kept), 'utf8')).toBe(first);
    expect(cli('rewind', h.session.id, 'status', '--json').json().preserved[0].restored).toBe(true);

    // Restoring it again is refused and changes nothing.
    const before = snapshotTree(h.work);
    const again = cli('rewind', h.session.id, 'restore', hash.slice(0, 12), '--json');
    expect(again.code).toBe(4);
    expect(JSON.parse(again.stdout).error.code).toBe('PRESERVED_ALREADY_RESTORED');
    expect(snapshotTree(h.work)).toEqual(before);

    // The later save it replaced is kept: redo brings it back.
    const redo = cli('redo', h.session.id, result.rewindId);
    expect(redo.code, redo.stderr).toBe(0);
    expect(readFileSync(h.path(kept), 'utf8')).toBe(later(kept));
  }, 120_000);

  it('refuses unknown ids, bad usage and a path that matches nothing with typed errors, changing nothing', () => {
    const before = snapshotTree(h.work);
    const unknown = cli('rewind', h.session.id, 'restore', 'abcdef123456', '--json');
    expect(unknown.code).toBe(3);
    expect(JSON.parse(unknown.stdout).error.code).toBe('PRESERVED_NOT_FOUND');
    const text = cli('rewind', h.session.id, 'restore', 'jnl_nothing');
    expect(text.code).toBe(3);
    expect(text.stderr).toContain(`waypoint rewind ${h.session.id} status`);
    const other = kept === 'a.txt' ? 'b.txt' : 'a.txt';
    const wrongPath = cli('rewind', h.session.id, 'restore', hashContent(Buffer.from(saves[kept]!)).slice(0, 12), other, '--json');
    expect(JSON.parse(wrongPath.stdout).error.code).toBe('PRESERVED_NOT_FOUND');
    const missing = cli('rewind', h.session.id, 'restore');
    expect(missing.code).toBe(2);
    expect(cli('rewind', h.session.id, 'restore', 'abcdef', '--force').code).toBe(2);
    expect(cli('rewind', 'ses_unknown', 'restore', 'abcdef', '--json').code).toBe(3);
    expect(snapshotTree(h.work)).toEqual(before);
  }, 120_000);
});
