import { execFileSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashContent, StoreError } from '../model/index.js';
import type { BlobStore } from '../blobs/index.js';
import type { Store } from '../store/store.js';
import { captureSinceBaseline, markScanBaseline } from './exec-baseline.js';
import { clearScanStateMemo, compactScanState, EXEC_SCAN_ENTRY } from './exec-scan-state.js';
import { createCaptureFixture, type CaptureFixture } from './fixtures/capture-fixture.js';

const bash = (cwd: string, script: string) => execFileSync('bash', ['-c', script], { cwd, stdio: 'ignore' });

/** Fails `method` of `target` as a crash at that instant would stop the capture (the calls before it done, none after). */
function failing<T extends object>(target: T, method: string, when: (...args: unknown[]) => boolean = () => true): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      if (property !== method) return value.bind(object);
      return (...args: unknown[]) => {
        if (when(...args)) throw new StoreError({ code: 'STORE_IO', message: `simulated crash at ${method}`, details: {} });
        return value.apply(object, args);
      };
    },
  });
}

/** The store, except that naming a new scan state fails: the crash falls after the state's one append, before its entry. */
const crashAtStateEntry = (store: Store) => failing(store, 'appendEntry', (_session, entry) => (entry as { type: string }).type === EXEC_SCAN_ENTRY);

describe('scan baseline of a hook handler', () => {
  let fx: CaptureFixture;
  beforeEach(async () => {
    fx = await createCaptureFixture();
    const past = (Date.now() - 3_600_000) / 1000;
    for (const [path, content] of Object.entries({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' })) {
      mkdirSync(join(fx.root, path, '..'), { recursive: true });
      writeFileSync(join(fx.root, path), content);
      utimesSync(join(fx.root, path), past, past);
    }
  });
  afterEach(() => fx.cleanup());

  const states = async () => (await fx.store.listEntries(fx.sessionId, { type: EXEC_SCAN_ENTRY })).length;

  it('a baseline that finds the files as saved keeps the saved state; the next capture still records the command’s change', async () => {
    await markScanBaseline(fx.context);
    const saved = await states();
    // Nothing changed since: the saved state stays the baseline (no new state written).
    await markScanBaseline(fx.context, { toolName: 'Bash', toolCallId: 'b1' });
    expect(await states()).toBe(saved);
    bash(fx.root, 'echo changed > a.txt && echo new > src/c.txt');
    clearScanStateMemo();
    const capture = await captureSinceBaseline(fx.context, { toolName: 'Bash', toolCallId: 'b1' });
    expect(capture?.checkpoints.map((row) => [row.op, row.path, row.afterHash])).toEqual([
      ['modify', 'workspace:a.txt', hashContent('changed\n')],
      ['create', 'workspace:src/c.txt', hashContent('new\n')],
    ]);
  });

  it('a change found by the baseline (someone else’s) becomes the new saved state and is not the command’s', async () => {
    await markScanBaseline(fx.context);
    const saved = await states();
    bash(fx.root, 'echo theirs > src/b.txt');
    const baseline = await markScanBaseline(fx.context, { toolName: 'Bash', toolCallId: 'b2' });
    expect(baseline.external?.modified.map((item) => item.path)).toEqual(['workspace:src/b.txt']);
    expect(await states()).toBe(saved + 1);
    bash(fx.root, 'rm a.txt');
    const capture = await captureSinceBaseline(fx.context, { toolName: 'Bash', toolCallId: 'b2' });
    expect(capture?.checkpoints.map((row) => [row.op, row.path])).toEqual([['delete', 'workspace:a.txt']]);
  });

  it('a crash after the baseline’s one append (contents and state), before its entry: the previous state stays, the command’s change is recorded from it', async () => {
    await markScanBaseline(fx.context);
    const saved = await states();
    bash(fx.root, 'echo theirs > src/b.txt');
    const crashing = { ...fx.context, store: crashAtStateEntry(fx.store) };
    await expect(markScanBaseline(crashing, { toolName: 'Bash', toolCallId: 'b3' })).rejects.toThrow('simulated crash');
    expect(await states()).toBe(saved);
    // What the scan found new was made durable and indexed in the append.
    expect((await fx.blobs.get(hashContent('theirs\n'))).toString()).toBe('theirs\n');
    bash(fx.root, 'echo mine > src/b.txt');
    clearScanStateMemo();
    await fx.blobs.gc();
    const capture = await captureSinceBaseline(fx.context, { toolName: 'Bash', toolCallId: 'b3' });
    expect(capture?.checkpoints.map((row) => [row.op, row.path, row.beforeHash, row.afterHash])).toEqual([
      ['modify', 'workspace:src/b.txt', hashContent('b\n'), hashContent('mine\n')],
    ]);
    await fx.blobs.gc();
    expect((await fx.blobs.get(hashContent('b\n'))).toString()).toBe('b\n');
    expect((await fx.blobs.get(hashContent('mine\n'))).toString()).toBe('mine\n');
  });

  it('a crash after the after-half’s checkpoints, before its state’s entry: the checkpoints name durable contents, and the next baseline loads', async () => {
    await markScanBaseline(fx.context);
    bash(fx.root, 'echo changed > a.txt');
    const crashing = { ...fx.context, store: crashAtStateEntry(fx.store) };
    await expect(captureSinceBaseline(crashing, { toolName: 'Bash', toolCallId: 'b4' })).rejects.toThrow('simulated crash');
    const [row] = await fx.store.listCheckpoints(fx.sessionId);
    expect([row?.op, row?.path, row?.afterHash]).toEqual(['modify', 'workspace:a.txt', hashContent('changed\n')]);
    await fx.reopen();
    clearScanStateMemo();
    await fx.blobs.gc();
    expect((await fx.blobs.get(hashContent('changed\n'))).toString()).toBe('changed\n');
    expect((await fx.blobs.get(hashContent('a\n'))).toString()).toBe('a\n');
    const context = { ...fx.context, store: fx.store, blobs: fx.blobs };
    const baseline = await markScanBaseline(context, { toolName: 'Bash', toolCallId: 'b5' });
    expect(baseline.external?.modified.map((item) => item.path)).toEqual(['workspace:a.txt']);
  });

  it('a failed append in the after-half records nothing and moves no state: the next capture records the change once', async () => {
    await markScanBaseline(fx.context);
    bash(fx.root, 'echo changed > a.txt');
    const crashing = { ...fx.context, blobs: failing<BlobStore>(fx.blobs, 'putMany') };
    await expect(captureSinceBaseline(crashing, { toolName: 'Bash', toolCallId: 'b6' })).rejects.toThrow('simulated crash');
    expect(await fx.store.listCheckpoints(fx.sessionId)).toEqual([]);
    clearScanStateMemo();
    await fx.blobs.gc();
    const capture = await captureSinceBaseline(fx.context, { toolName: 'Bash', toolCallId: 'b6' });
    expect(capture?.checkpoints.map((row) => [row.op, row.path, row.afterHash])).toEqual([['modify', 'workspace:a.txt', hashContent('changed\n')]]);
    expect((await fx.blobs.get(hashContent('changed\n'))).toString()).toBe('changed\n');
  });

  it('a long chain of amended states is rewritten whole by a compaction; the next capture records exactly from it, cold and after GC', async () => {
    await markScanBaseline(fx.context);
    const depthOfLatest = async () => {
      const [entry] = await fx.store.listEntries(fx.sessionId, { type: EXEC_SCAN_ENTRY, last: 1 });
      return (JSON.parse((await fx.blobs.get(entry!.data.stateHash as string)).toString()) as { depth: number }).depth;
    };
    expect(await compactScanState(fx.store, fx.blobs, fx.sessionId)).toBe(false);
    for (let round = 0; round < 24; round++) {
      bash(fx.root, `echo ${round} > a.txt`);
      await captureSinceBaseline(fx.context, { toolName: 'Bash', toolCallId: `c${round}` });
    }
    expect(await depthOfLatest()).toBe(24);
    expect(await compactScanState(fx.store, fx.blobs, fx.sessionId)).toBe(true);
    expect(await depthOfLatest()).toBe(0);
    expect(await compactScanState(fx.store, fx.blobs, fx.sessionId)).toBe(false);
    clearScanStateMemo();
    await fx.blobs.gc();
    bash(fx.root, 'echo last > a.txt && rm src/b.txt');
    const capture = await captureSinceBaseline(fx.context, { toolName: 'Bash', toolCallId: 'last' });
    expect(capture?.checkpoints.map((row) => [row.op, row.path, row.beforeHash, row.afterHash])).toEqual([
      ['delete', 'workspace:src/b.txt', hashContent('b\n'), null],
      ['modify', 'workspace:a.txt', hashContent('23\n'), hashContent('last\n')],
    ]);
  });
});
