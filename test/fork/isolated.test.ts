import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyToolEdit, applyToolWrite, captureExec, CheckpointedFs } from '../../src/checkpoint/index.js';
import { errorCode } from '../../src/checkpoint/fixtures/capture-fixture.js';
import { SessionForker } from '../../src/fork/index.js';
import { createForkFixture, snapshotDir, type ForkFixture } from './fork-fixture.js';

let fx: ForkFixture;
let forker: SessionForker;
beforeEach(async () => {
  fx = await createForkFixture();
  forker = new SessionForker({ store: fx.store, blobs: fx.blobs });
});
afterEach(async () => fx.cleanup());

describe('isolated workspace', () => {
  it('materializes the tracked files exactly as they were at the fork point (bytes and modes); the parent is untouched', async () => {
    // Files the agent never touched, an ignored file, a symlink, an executable.
    mkdirSync(join(fx.root, 'src/deep'), { recursive: true });
    writeFileSync(join(fx.root, 'README.md'), 'readme\n');
    writeFileSync(join(fx.root, 'src/deep/data.bin'), Buffer.from([0, 1, 2, 255]));
    writeFileSync(join(fx.root, '.gitignore'), 'build/\n');
    mkdirSync(join(fx.root, 'build'));
    writeFileSync(join(fx.root, 'build/out.js'), 'ignored\n');
    symlinkSync('README.md', join(fx.root, 'link'));
    writeFileSync(join(fx.root, 'run.sh'), '#!/bin/sh\n');
    chmodSync(join(fx.root, 'run.sh'), 0o755);

    const one = await fx.turn('one', async (context) => {
      await applyToolWrite(context, { path: 'src/a.ts', content: 'export const a = 1;\n', mode: 0o640 });
      await applyToolWrite(context, { path: 'src/b.ts', content: 'b\n' });
    });
    // The state at the fork point, taken independently (ignored build/ left out: the fork is asked to omit it).
    const expected = snapshotDir(fx.root);
    delete expected['build/out.js'];

    await fx.turn('two', async (context) => {
      await applyToolEdit(context, { path: 'src/a.ts', oldString: '1', newString: '2' });
      const fs = new CheckpointedFs(context);
      await fs.rename('src/b.ts', 'src/b2.ts');
      await fs.deleteFile('README.md');
      await applyToolWrite(context, { path: 'new.txt', content: 'new\n' });
      await captureExec(
        context,
        () => {
          chmodSync(join(fx.root, 'src/a.ts'), 0o750);
          writeFileSync(join(fx.root, 'shell.txt'), 'x\n');
          writeFileSync(join(fx.root, 'src/deep/data.bin'), Buffer.from([9]));
        },
        { command: 'chmod 750 src/a.ts; echo x > shell.txt; …' },
      );
    });
    await fx.turn('three', async (context) => {
      await applyToolEdit(context, { path: 'src/a.ts', oldString: '2', newString: '3' });
    });
    const parentBefore = snapshotDir(fx.root);

    const progress: number[] = [];
    const target = join(fx.dir, 'child-ws');
    const result = await forker.fork({
      from: 'message',
      sessionId: fx.sessionId,
      messageId: one.replyId,
      workspace: { mode: 'isolated', dir: target, ignored: 'omit' },
      onProgress: (done) => progress.push(done),
    });
    expect(result.strategy).toBe('isolated');
    expect(result.materialized!.ignored).toEqual([{ path: 'build/', action: 'omit', files: 0, bytes: 0 }]);
    expect(result.materialized!.git).toBeNull();
    expect(result.session.workdir).toBe(target);
    expect(snapshotDir(target)).toEqual(expected);
    expect(snapshotDir(fx.root)).toEqual(parentBefore);
    expect(progress.at(-1)).toBe(Object.keys(expected).length);
    expect(result.fileRewind).toBeNull();
    expect(await fx.store.listEntries(fx.sessionId, { type: 'file-rewind' })).toEqual([]);
  });

  it("from a checkpoint: the default directory sits beside the parent's, at the state before that checkpoint", async () => {
    await fx.turn('one', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a1\n' });
    });
    const expected = snapshotDir(fx.root);
    await fx.turn('two', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a2\n' });
    });
    const result = await forker.fork({ from: 'checkpoint', sessionId: fx.sessionId, workspace: { mode: 'isolated' } });
    expect(result.session.workdir).toBe(`${fx.root}.forks/${result.session.id}`);
    expect(snapshotDir(result.session.workdir!)).toEqual(expected);
    expect(readFileSync(join(fx.root, 'a.txt'), 'utf8')).toBe('a2\n');
  });

  it('two strategies run side by side: changes in the child do not reach the parent', async () => {
    const one = await fx.turn('one', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a1\n' });
    });
    const child = await forker.fork({ from: 'stable', sessionId: fx.sessionId, messageId: one.replyId, workspace: { mode: 'isolated' } });
    writeFileSync(join(child.session.workdir!, 'a.txt'), 'plan b\n');
    expect(readFileSync(join(fx.root, 'a.txt'), 'utf8')).toBe('a1\n');
  });

  it('refuses a target directory that is not empty, writing nothing and creating no child', async () => {
    const one = await fx.turn('one');
    const target = join(fx.dir, 'busy');
    mkdirSync(target);
    writeFileSync(join(target, 'keep.txt'), 'mine\n');
    expect(
      await errorCode(() => forker.fork({ from: 'stable', sessionId: fx.sessionId, messageId: one.replyId, workspace: { mode: 'isolated', dir: target } })),
    ).toBe('MATERIALIZE_TARGET_NOT_EMPTY');
    expect(snapshotDir(target)).toEqual({ 'keep.txt': { kind: 'file', mode: expect.any(Number), content: Buffer.from('mine\n').toString('base64') } });
    expect(await fx.store.listSessions({ parentSessionId: fx.sessionId })).toEqual([]);
  });

  it('removes the materialized directory when the child cannot be committed', async () => {
    const one = await fx.turn('one');
    const target = join(fx.dir, 'gone');
    const original = fx.store.forkSession.bind(fx.store);
    fx.store.forkSession = async () => {
      throw new Error('commit failed');
    };
    await expect(
      forker.fork({ from: 'stable', sessionId: fx.sessionId, messageId: one.replyId, workspace: { mode: 'isolated', dir: target } }),
    ).rejects.toThrow('commit failed');
    fx.store.forkSession = original;
    expect(existsSync(target)).toBe(false);
  });
});
