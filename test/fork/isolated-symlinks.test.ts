import { execFileSync } from 'node:child_process';
import { mkdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureExec } from '../../src/checkpoint/index.js';
import { SessionForker } from '../../src/fork/index.js';
import { createForkFixture, snapshotDir, type ForkFixture } from './fork-fixture.js';

const bash = (cwd: string, script: string) => execFileSync('bash', ['-c', script], { cwd, stdio: 'ignore' });

let fx: ForkFixture;
beforeEach(async () => {
  fx = await createForkFixture();
});
afterEach(async () => fx.cleanup());

describe('an isolated fork of a workspace with symbolic links', () => {
  it('gets every link as a link with its exact text (relative, absolute outside, dangling, not UTF-8), at the fork point', async () => {
    const outside = join(fx.dir, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'outside\n');
    writeFileSync(join(fx.root, 'a.txt'), 'a\n');
    // Links the agent never touches: copied from the parent as they are.
    symlinkSync(join(outside, 'secret.txt'), join(fx.root, 'kept-abs'));
    symlinkSync(Buffer.from([0x6e, 0xff, 0x2e, 0x74]), join(fx.root, 'kept-bytes'));
    const one = await fx.turn('one', async (context) => {
      await captureExec(context, () => bash(fx.root, `ln -s a.txt rel; ln -s ${outside}/secret.txt abs; ln -s ../nowhere dang`), { command: 'ln -s …' });
    });
    const expected = snapshotDir(fx.root);
    const bytes = readlinkSync(join(fx.root, 'kept-bytes'), { encoding: 'buffer' });
    // After the fork point: links retargeted, deleted, replaced by a file; the fork must not see it.
    await fx.turn('two', async (context) => {
      await captureExec(context, () => bash(fx.root, `ln -sfn /etc rel; rm abs; rm dang && printf 'file\\n' > dang`), { command: 'ln -sfn …' });
    });
    const parent = snapshotDir(fx.root);
    const target = join(fx.dir, 'child-ws');
    const forker = new SessionForker({ store: fx.store, blobs: fx.blobs });
    await forker.fork({ from: 'message', sessionId: fx.sessionId, messageId: one.replyId, workspace: { mode: 'isolated', dir: target } });
    expect(snapshotDir(target)).toEqual(expected);
    expect(readlinkSync(join(target, 'kept-bytes'), { encoding: 'buffer' }).equals(bytes)).toBe(true);
    expect(snapshotDir(fx.root)).toEqual(parent);
    expect(snapshotDir(outside)).toEqual({ 'secret.txt': expect.objectContaining({ kind: 'file' }) });
  });
});
