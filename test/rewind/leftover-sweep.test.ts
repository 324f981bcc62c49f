import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/blobs/index.js';
import { sessionWorkspace } from '../../src/checkpoint/index.js';
import { hashContent, WaypointError } from '../../src/model/index.js';
import { listPreserved, recoverJournals, restorePreserved, sweepLeftovers } from '../../src/rewind/index.js';
import { LINK_MODE, prepareFileWrite, type Workspace } from '../../src/workspace/index.js';
import { RewindHarness } from '../fixtures/rewind-harness.js';
import { snapshotTree } from '../fixtures/snapshot-tree.js';

const childScript = join(import.meta.dirname, '..', 'fixtures', 'leftover-writer-child.ts');
const HIDDEN = /\.wp-(tmp|old)$/;

/** Starts a writer that leaves hidden files (see the fixture's modes) and resolves once they are on disk. */
function startWriter(h: RewindHarness, mode: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', childScript, h.storePath, h.work, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`writer exited early (${code})`)));
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

function hiddenFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => HIDDEN.test(name))
    .sort();
}

describe('sweeping the hidden files killed writes left', () => {
  let h: RewindHarness;
  let workspace: Workspace;
  const children: ChildProcess[] = [];
  const sweep = (options: { dryRun?: boolean; minAgeMs?: number; blobs?: BlobStore; now?: () => number; batchBytes?: number } = {}) =>
    sweepLeftovers({ store: h.store, blobs: options.blobs ?? h.blobs, workspace, sessionId: h.session.id, minAgeMs: 0, lockWaitMs: 100, ...options });

  beforeEach(async () => {
    h = await RewindHarness.create('waypoint-sweep-');
    workspace = sessionWorkspace(h.session, h.storePath);
    h.put('a.txt', 'a as the person left it\n');
    h.put('b.txt', 'b as the person left it\n');
  });
  afterEach(async () => {
    for (const child of children.splice(0)) await kill(child);
    await h.cleanup();
  });

  it("finds a SIGKILLed writer's temp and parked files, keeps their contents on record, removes them, and a kept content goes back to its file", async () => {
    const child = await startWriter(h, 'plain');
    children.push(child);
    await kill(child);
    const left = hiddenFiles(h.work);
    expect(left).toHaveLength(2);
    const contents = Object.fromEntries(left.map((name) => [name, readFileSync(h.path(name), 'utf8')]));
    expect(Object.values(contents).sort()).toEqual(['b as the person left it\n', `unlanded write to a.txt by ${child.pid}\n`]);

    const report = await sweep();
    expect(hiddenFiles(h.work)).toEqual([]);
    expect(report.kept).toEqual([]);
    expect(report.swept.map((item) => [item.kind, item.target, item.hash]).sort()).toEqual(
      [
        ['parked', 'workspace:b.txt', hashContent(Buffer.from('b as the person left it\n'))],
        ['temp', 'workspace:a.txt', hashContent(Buffer.from(`unlanded write to a.txt by ${child.pid}\n`))],
      ].sort(),
    );
    // The work tree's own files are untouched.
    expect(h.read('a.txt')).toBe('a as the person left it\n');
    expect(h.read('b.txt')).toBe(`new b.txt by ${child.pid}\n`);

    // Each content is in the store, pinned against GC, and listed as a save kept aside.
    await h.blobs.gc();
    for (const item of report.swept) expect((await h.blobs.get(item.hash)).toString()).toBe(contents[item.path.slice('workspace:'.length)]);
    const kept = await listPreserved(h.store, h.session.id);
    expect(kept.map((save) => [save.rewindId, save.path, save.hash]).sort()).toEqual(
      report.swept.map((item) => [item.recordId, item.target, item.hash]).sort(),
    );

    // The replaced content of b.txt goes back to b.txt, as a journaled rewind (what b.txt held is kept).
    const parked = report.swept.find((item) => item.kind === 'parked')!;
    await restorePreserved({ store: h.store, blobs: h.blobs, workspace, sessionId: h.session.id, rewindId: parked.recordId!, path: 'workspace:b.txt' });
    expect(h.read('b.txt')).toBe('b as the person left it\n');
    expect((await listPreserved(h.store, h.session.id)).find((save) => save.rewindId === parked.recordId)!.restored).toBe(true);
  }, 60_000);

  it('--dry-run reports exactly what would go and changes nothing on disk or in the records', async () => {
    const child = await startWriter(h, 'plain');
    children.push(child);
    await kill(child);
    const before = snapshotTree(h.work);
    const report = await sweep({ dryRun: true });
    expect(report.dryRun).toBe(true);
    expect(report.swept.map((item) => item.path).sort()).toEqual(hiddenFiles(h.work).map((name) => `workspace:${name}`));
    expect(report.swept.every((item) => item.recordId === null)).toBe(true);
    expect(snapshotTree(h.work)).toEqual(before);
    expect(await listPreserved(h.store, h.session.id)).toEqual([]);
    // What the dry run listed is what the real sweep removes.
    expect((await sweep()).swept.map((item) => item.path)).toEqual(report.swept.map((item) => item.path));
  }, 60_000);

  it('a live writer holding the workspace lock: the sweep is refused with WORKSPACE_BUSY and its temp file stays; once it is killed, it is swept', async () => {
    const child = await startWriter(h, 'lock');
    children.push(child);
    const left = hiddenFiles(h.work);
    expect(left).toHaveLength(1);
    const error = await sweep().catch((caught: unknown) => caught);
    expect(WaypointError.is(error, 'WORKSPACE_BUSY')).toBe(true);
    expect(hiddenFiles(h.work)).toEqual(left);
    await kill(child);
    expect((await sweep()).swept.map((item) => item.path)).toEqual([`workspace:${left[0]}`]);
    expect(hiddenFiles(h.work)).toEqual([]);
  }, 60_000);

  it('a temp file a write in flight names stays, its writer alive or killed: write recovery owns it', async () => {
    const child = await startWriter(h, 'intent');
    children.push(child);
    const left = hiddenFiles(h.work);
    let report = await sweep();
    expect(report.kept.map((item) => [item.path, item.reason])).toEqual([[`workspace:${left[0]}`, 'write_intent']]);
    await kill(child);
    report = await sweep();
    expect(report.kept.map((item) => item.reason)).toEqual(['write_intent']);
    expect(hiddenFiles(h.work)).toEqual(left);
  }, 60_000);

  it("a parked file beside a path a pending journal names stays, its writer alive or killed, so the journal's recovery can put it back", async () => {
    const child = await startWriter(h, 'journal');
    children.push(child);
    const left = hiddenFiles(h.work);
    expect(left.map((name) => name.endsWith('.wp-old'))).toEqual([true]);
    expect((await sweep()).kept.map((item) => [item.path, item.reason])).toEqual([[`workspace:${left[0]}`, 'journal_pending']]);
    await kill(child);
    const report = await sweep();
    expect(report.kept.map((item) => [item.path, item.reason])).toEqual([[`workspace:${left[0]}`, 'journal_pending']]);
    expect(readFileSync(h.path(left[0]!), 'utf8')).toBe('a as the person left it\n');
  }, 60_000);

  it("the fork set-up's `<name>.<pid>.wp-tmp` stays while its pid runs, and is swept once it is gone", async () => {
    const child = await startWriter(h, 'pid');
    children.push(child);
    const name = `.git.${child.pid}.wp-tmp`;
    expect(existsSync(h.path(name))).toBe(true);
    expect((await sweep()).kept.map((item) => [item.path, item.reason])).toEqual([[`workspace:${name}`, 'writer_running']]);
    await kill(child);
    expect((await sweep()).swept.map((item) => [item.path, item.target])).toEqual([[`workspace:${name}`, 'workspace:.git']]);
    expect(existsSync(h.path(name))).toBe(false);
  }, 60_000);

  it('a real rewind killed after writing its temp file but before recording its journal: recovery cannot see the file, the sweep keeps its content and removes it', async () => {
    h.put('a.txt', 'a0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'a1\n');
    // Another writer holds the store's write lock, so the rewind plans (and writes its temp file)
    // but waits to record its journal; it is killed there.
    const blocker = new Database(h.storePath);
    blocker.exec('BEGIN IMMEDIATE');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, '..', 'fixtures', 'rewind-latest-child.ts'), h.storePath, h.session.id],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    children.push(child);
    try {
      const deadline = Date.now() + 30_000;
      while (hiddenFiles(h.work).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      // It waits on the store's lock from here on: a moment more lets its temp file be whole.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await kill(child);
    } finally {
      blocker.exec('ROLLBACK');
      blocker.close();
    }
    const left = hiddenFiles(h.work);
    expect(left.map((name) => name.endsWith('.wp-tmp'))).toEqual([true]);
    expect(h.read('a.txt')).toBe('a1\n');
    // Nothing names it: recovery on the next open leaves it where it is.
    await h.reopen();
    expect(await h.store.listJournals({ state: 'pending' })).toEqual([]);
    const recovery = await recoverJournals(h.store);
    expect(recovery.recovered).toEqual([]);
    expect(hiddenFiles(h.work)).toEqual(left);

    const report = await sweep();
    expect(report.swept.map((item) => [item.path, item.kind, item.target, item.hash])).toEqual([
      [`workspace:${left[0]}`, 'temp', 'workspace:a.txt', hashContent(Buffer.from('a0\n'))],
    ]);
    expect(hiddenFiles(h.work)).toEqual([]);
    expect(h.read('a.txt')).toBe('a1\n');
  }, 60_000);

  it('a file parked a moment ago counts as new however old its content: the rename sets its change time', async () => {
    h.put('old.txt', 'written long ago\n');
    const longAgo = new Date(Date.now() - 3 * 86_400_000);
    utimesSync(h.path('old.txt'), longAgo, longAgo);
    renameSync(h.path('old.txt'), h.path('.old.txt.0123456789ab.wp-old'));
    const report = await sweep({ minAgeMs: 60 * 60 * 1000 });
    expect(report.kept.map((item) => [item.path, item.reason])).toEqual([['workspace:.old.txt.0123456789ab.wp-old', 'recent']]);
    expect(report.swept).toEqual([]);
    // An hour and a bit later it is old enough.
    const later = await sweep({ minAgeMs: 60 * 60 * 1000, now: () => Date.now() + 61 * 60 * 1000 });
    expect(later.swept.map((item) => item.path)).toEqual(['workspace:.old.txt.0123456789ab.wp-old']);
  });

  it('a writer whose temp file was swept fails its rename (or link) with an error instead of reporting the write done', async () => {
    const write = prepareFileWrite(workspace.resolve('a.txt'), 'a write in flight\n');
    await write.sync();
    expect((await sweep()).swept.map((item) => item.target)).toEqual(['workspace:a.txt']);
    expect(() => write.commit()).toThrowError(expect.objectContaining({ code: 'FILE_WRITE_FAILED' }));
    expect(h.read('a.txt')).toBe('a as the person left it\n');
    // The same for the link into an empty name a compare-and-replace commits with.
    const linked = prepareFileWrite(workspace.resolve('new.txt'), 'another write in flight\n');
    expect((await sweep()).swept.map((item) => item.target)).toEqual(['workspace:new.txt']);
    expect(() => linked.commitIfAbsent()).toThrowError(expect.objectContaining({ code: 'FILE_WRITE_FAILED' }));
    expect(h.read('new.txt')).toBeNull();
  });

  it('batch by batch: when a batch cannot be stored, the sweep stops and none of its files, nor any later one, is removed', async () => {
    for (const name of ['a', 'b', 'c']) writeFileSync(h.path(`.${name}.txt.00000000000${name}.wp-tmp`), `${name} `.repeat(10));
    let calls = 0;
    const secondFails = new Proxy(h.blobs, {
      get(target, property, receiver) {
        if (property === 'putMany')
          return async (...args: Parameters<BlobStore['putMany']>) => {
            calls += 1;
            if (calls === 2) throw new Error('disk full');
            return target.putMany(...args);
          };
        return Reflect.get(target, property, receiver);
      },
    });
    await expect(sweep({ blobs: secondFails, batchBytes: 20 })).rejects.toThrow('disk full');
    expect(hiddenFiles(h.work)).toEqual(['.b.txt.00000000000b.wp-tmp', '.c.txt.00000000000c.wp-tmp']);
    expect((await listPreserved(h.store, h.session.id)).map((save) => save.path)).toEqual(['workspace:a.txt']);
  });

  it('a kept link goes back as a link with its exact text, a kept executable with its bits; a record without a mode never makes a link', async () => {
    // A link write's temp file (a link) and a parked executable, as killed writers leave them.
    symlinkSync('../outside/target name', h.path('.link.00000000000c.wp-tmp'));
    writeFileSync(h.path('.run.sh.00000000000d.wp-old'), '#!/bin/sh\necho kept\n', { mode: 0o755 });
    chmodSync(h.path('.run.sh.00000000000d.wp-old'), 0o755);
    const report = await sweep();
    expect(hiddenFiles(h.work)).toEqual([]);
    const saves = await listPreserved(h.store, h.session.id);
    const link = saves.find((save) => save.path === 'workspace:link')!;
    const script = saves.find((save) => save.path === 'workspace:run.sh')!;
    // Linux gives every link the bits 0777.
    expect(link.mode).toBe(LINK_MODE | 0o777);
    expect(script.mode).toBe(0o755);
    expect(report.swept).toHaveLength(2);

    await restorePreserved({ store: h.store, blobs: h.blobs, workspace, sessionId: h.session.id, rewindId: link.rewindId, path: 'workspace:link' });
    expect(lstatSync(h.path('link')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(h.path('link'))).toBe('../outside/target name');
    // A file at the path now is replaced by the script as it was, executable.
    h.put('run.sh', 'echo someone else\n');
    await restorePreserved({ store: h.store, blobs: h.blobs, workspace, sessionId: h.session.id, rewindId: script.rewindId, path: 'workspace:run.sh' });
    expect(h.read('run.sh')).toBe('#!/bin/sh\necho kept\n');
    expect(statSync(h.path('run.sh')).mode & 0o777).toBe(0o755);

    // A record written before modes were kept: its content goes back as a regular file, even over a link.
    const old = await h.blobs.put(Buffer.from('plain text kept long ago\n'));
    await h.store.appendEntry(h.session.id, { type: 'rewind-preserved', data: { rewindId: 'jnl_old_record', files: [{ path: 'workspace:link', hash: old }] } });
    expect((await listPreserved(h.store, h.session.id)).find((save) => save.rewindId === 'jnl_old_record')!.mode).toBeNull();
    await restorePreserved({ store: h.store, blobs: h.blobs, workspace, sessionId: h.session.id, rewindId: 'jnl_old_record', path: 'workspace:link' });
    expect(lstatSync(h.path('link')).isFile()).toBe(true);
    expect(h.read('link')).toBe('plain text kept long ago\n');
    expect(statSync(h.path('link')).mode & 0o777).toBe(0o644);
  });

  it('a content that cannot be stored leaves every leftover in place', async () => {
    mkdirSync(h.path('deep/er'), { recursive: true });
    writeFileSync(h.path('deep/er/.c.txt.00000000000a.wp-tmp'), 'c\n');
    writeFileSync(h.path('.a.txt.00000000000b.wp-old'), 'a before\n');
    const failing = new Proxy(h.blobs, {
      get(target, property, receiver) {
        if (property === 'putMany') return async () => Promise.reject(new Error('disk full'));
        return Reflect.get(target, property, receiver);
      },
    });
    const before = snapshotTree(h.work);
    await expect(sweep({ blobs: failing })).rejects.toThrow('disk full');
    expect(snapshotTree(h.work)).toEqual(before);
    expect(await listPreserved(h.store, h.session.id)).toEqual([]);
    // The workspace lock was let go: the next sweep runs.
    expect((await sweep()).swept.map((item) => item.path)).toEqual(['workspace:.a.txt.00000000000b.wp-old', 'workspace:deep/er/.c.txt.00000000000a.wp-tmp']);
  });
});
