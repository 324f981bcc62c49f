import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashContent, StoreError } from '../model/index.js';
import type { Store } from '../store/store.js';
import { checkpointPatch } from './checkpoint-patch.js';
import { CheckpointedFs } from './checkpointed-fs.js';
import { createCaptureFixture, type CaptureFixture } from './fixtures/capture-fixture.js';
import { applyToolWrite } from './tool-checkpoint.js';
import { recoverWriteIntents } from './write-recovery.js';

/** A pid no process has any more: a real child that ran and exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

/** Hands the store's write intents to a process that has exited, as a crash would leave them. */
function orphanIntents(storePath: string): void {
  const db = new Database(storePath);
  try {
    db.prepare('UPDATE write_intents SET pid = ?').run(deadPid());
  } finally {
    db.close();
  }
}

/** The store, except that finishing a write fails: the write stops between its file change and its row. */
function crashingBeforeRows(store: Store): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'finishWriteIntent') {
        return async (id: string, rows?: unknown[]) => {
          if (rows && rows.length > 0) throw new StoreError({ code: 'STORE_IO', message: 'simulated crash before the rows', details: { id } });
          return target.finishWriteIntent(id);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('recovering writes a crash left in flight', () => {
  let fx: CaptureFixture;
  beforeEach(async () => {
    fx = await createCaptureFixture();
  });
  afterEach(() => fx.cleanup());

  it('a tool write whose row cannot be written puts the file back: nothing changed, its intent is dropped by recovery', async () => {
    writeFileSync(join(fx.root, 'a.txt'), 'the person’s edit\n');
    const failing = { ...fx.context, store: crashingBeforeRows(fx.store) };
    await expect(applyToolWrite(failing, { path: 'a.txt', content: 'the agent’s\n' })).rejects.toThrow('simulated crash');
    expect(readFileSync(join(fx.root, 'a.txt'), 'utf8')).toBe('the person’s edit\n');
    orphanIntents(fx.storePath);
    expect(await recoverWriteIntents(fx.store, fx.blobs)).toMatchObject({ completed: [], dropped: [expect.any(String)] });
    expect(await fx.store.listCheckpoints(fx.sessionId)).toEqual([]);
    expect(readdirSync(fx.root).filter((name) => name.startsWith('.a.txt'))).toEqual([]);
  });

  // A tool write killed at that point is recovered the same way (test/checkpoint/tool-write-kill.test.ts, real SIGKILLs).
  it('records an fs write whose file changed, and keeps a live process’s write alone', async () => {
    writeFileSync(join(fx.root, 'a.txt'), 'the person’s edit\n');
    const crashing = new CheckpointedFs({ ...fx.context, store: crashingBeforeRows(fx.store) });
    await expect(crashing.writeFile('a.txt', 'the agent’s\n')).rejects.toThrow('simulated crash');
    expect(readFileSync(join(fx.root, 'a.txt'), 'utf8')).toBe('the agent’s\n');
    expect(await recoverWriteIntents(fx.store, fx.blobs)).toMatchObject({
      completed: [],
      dropped: [],
      skipped: [{ reason: expect.stringContaining('this process') }],
    });

    orphanIntents(fx.storePath);
    const report = await recoverWriteIntents(fx.store, fx.blobs);
    expect(report.completed).toHaveLength(1);
    const [checkpoint] = await fx.store.listCheckpoints(fx.sessionId);
    expect(checkpoint).toMatchObject({
      id: report.completed[0]!.checkpointIds[0],
      op: 'modify',
      source: 'fs',
      beforeHash: hashContent(Buffer.from('the person’s edit\n')),
      afterMode: 0o644,
    });
    expect(await checkpointPatch(fx.blobs, checkpoint!)).toContain('+the agent’s');
    expect((await fx.blobs.get(checkpoint!.beforeHash!)).toString()).toBe('the person’s edit\n');
    expect(await fx.store.listWriteIntents()).toEqual([]);
    expect((await fx.blobs.gc()).unreachable).toEqual([]);
  });

  it('records an fs move that happened, drops one whose file is still as before', async () => {
    writeFileSync(join(fx.root, 'from.txt'), 'moving\n');
    writeFileSync(join(fx.root, 'stays.txt'), 'old\n');
    const fs = new CheckpointedFs({ ...fx.context, store: crashingBeforeRows(fx.store) });
    await expect(fs.move('from.txt', 'to.txt')).rejects.toThrow('simulated crash');
    await expect(fs.writeFile('stays.txt', 'new\n')).rejects.toThrow('simulated crash');
    // The second write's file is put back by hand, its temp file too: as if the crash came before its rename.
    writeFileSync(join(fx.root, 'stays.txt'), 'old\n');
    writeFileSync(join(fx.root, '.stays.txt.0123456789ab.wp-tmp'), 'new\n');
    writeFileSync(join(fx.root, '.stays.txt.ba9876543210.wp-tmp'), 'someone else’s\n');
    orphanIntents(fx.storePath);
    const report = await recoverWriteIntents(fx.store, fx.blobs);
    expect(report.completed).toHaveLength(1);
    expect(report.dropped).toHaveLength(1);
    // Only the temp file holding the dropped write's own content goes.
    expect(existsSync(join(fx.root, '.stays.txt.0123456789ab.wp-tmp'))).toBe(false);
    expect(readFileSync(join(fx.root, '.stays.txt.ba9876543210.wp-tmp'), 'utf8')).toBe('someone else’s\n');
    const checkpoints = await fx.store.listCheckpoints(fx.sessionId);
    expect(checkpoints).toMatchObject([
      { op: 'move', path: 'workspace:from.txt', toPath: 'workspace:to.txt', source: 'fs', beforeHash: hashContent(Buffer.from('moving\n')) },
    ]);
  });

  it('records a write whose file now holds something else, so nothing it overwrote is lost', async () => {
    writeFileSync(join(fx.root, 'b.txt'), 'first\n');
    await expect(applyToolWrite({ ...fx.context, store: crashingBeforeRows(fx.store) }, { path: 'b.txt', content: 'second\n' })).rejects.toThrow(
      'simulated crash',
    );
    writeFileSync(join(fx.root, 'b.txt'), 'a later edit\n');
    orphanIntents(fx.storePath);
    expect((await recoverWriteIntents(fx.store, fx.blobs)).completed).toHaveLength(1);
    const [checkpoint] = await fx.store.listCheckpoints(fx.sessionId);
    expect((await fx.blobs.get(checkpoint!.beforeHash!)).toString()).toBe('first\n');
  });

  it('a pin of a process that died expires: the sweep removes it and its blobs go', async () => {
    const hash = await fx.blobs.put(Buffer.from('stored, never referenced'));
    await fx.blobs.pin([hash]);
    expect((await fx.blobs.gc()).unreachable).toEqual([]);
    orphanIntents(fx.storePath);
    expect((await fx.blobs.gc()).unreachable).toEqual([hash]);
    expect(await fx.store.listWriteIntents()).toEqual([]);
    expect(existsSync(fx.storePath)).toBe(true);
  });
});
