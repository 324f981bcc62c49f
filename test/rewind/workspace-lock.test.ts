import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WaypointError } from '../../src/model/index.js';
import { FileRewinder } from '../../src/rewind/files/index.js';
import { lockWorkspace } from '../../src/rewind/files/workspace-lock.js';
import { Workspace } from '../../src/workspace/index.js';
import { RewindHarness } from '../fixtures/rewind-harness.js';

const holderScript = join(import.meta.dirname, '..', 'fixtures', 'rewind-lock-holder.ts');

function startHolder(h: RewindHarness): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', holderScript, h.storePath, h.work], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`lock holder exited early (${code})`)));
  });
}

describe('the workspace lock rewinds serialize on', () => {
  let h: RewindHarness;
  let holder: ChildProcess | null = null;
  beforeEach(async () => {
    h = await RewindHarness.create('waypoint-lock-');
  });
  afterEach(async () => {
    holder?.kill('SIGKILL');
    holder = null;
    await h.cleanup();
  });

  it('a live holder in another process makes a rewind wait, then refuse with WORKSPACE_BUSY, changing nothing; once it is SIGKILLed the lock is taken over', async () => {
    h.put('a.txt', 'a0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'a1\n');
    holder = await startHolder(h);
    const workspace = new Workspace({ roots: [{ name: 'workspace', dir: h.work, kind: 'workspace' }] });
    const busy = await lockWorkspace(h.store, workspace, { purpose: 'probe', waitMs: 200 }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(WaypointError.is(busy, 'WORKSPACE_BUSY')).toBe(true);
    expect((busy as WaypointError).message).toContain(`process ${holder.pid}`);
    expect(await lockWorkspace(h.store, workspace, { purpose: 'probe', waitMs: 0 })).toBeNull();
    expect(h.read('a.txt')).toBe('a1\n');

    const killed = new Promise((resolve) => holder!.once('exit', resolve));
    holder.kill('SIGKILL');
    await killed;
    holder = null;
    // The dead holder's row is still there; the next rewind takes it over instead of waiting.
    const result = await new FileRewinder({ store: h.store }).cascade(h.session.id, turn.messageId);
    expect(result.files.map((file) => file.path)).toEqual(['workspace:a.txt']);
    expect(h.read('a.txt')).toBe('a0\n');
  }, 30_000);

  it("a rewind first rolls back a dead process's unfinished journal on the workspace, then plans on the files as they were", async () => {
    h.put('a.txt', 'a0\n');
    h.put('b.txt', 'b0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'a1\n');
    await h.recordWrite(turn, 'b.txt', 'b1\n');
    // A process died half-way through rewinding a.txt and b.txt: a.txt written, b.txt not yet.
    const a1 = h.hash('a1\n');
    const a0 = h.hash('a0\n');
    const journal = await h.store.createJournal({
      sessionId: h.session.id,
      kind: 'file-rewind',
      root: h.work,
      items: [
        { path: 'workspace:a.txt', expectedHash: a1, targetHash: a0, mode: null },
        { path: 'workspace:b.txt', expectedHash: h.hash('b1\n'), targetHash: h.hash('b0\n'), mode: null },
      ],
      metadata: { roots: [{ name: 'workspace', dir: h.work, kind: 'workspace' }], pid: 999_999_999 },
    });
    h.put('a.txt', 'a0\n');
    const preview = await new FileRewinder({ store: h.store }).preview({ sessionId: h.session.id, turnId: turn.turnId });
    // The preview (which takes no lock) sees the half-applied state: a.txt already at its old content.
    expect(preview.files.find((file) => file.path === 'workspace:a.txt')!.status).toBe('external_modified');
    const result = await new FileRewinder({ store: h.store }).cascade(h.session.id, turn.messageId);
    expect((await h.store.getJournal(journal.id)).state).toBe('rolled_back');
    expect(result.files.map((file) => [file.path, file.fromHash]).sort()).toEqual([
      ['workspace:a.txt', a1],
      ['workspace:b.txt', h.hash('b1\n')],
    ]);
    expect(h.files()).toEqual({ 'a.txt': 'a0\n', 'b.txt': 'b0\n' });
  });
});
