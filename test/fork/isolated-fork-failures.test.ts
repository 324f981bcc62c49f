import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync, writeFileSync, writeSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyToolWrite } from '../../src/checkpoint/index.js';
import { errorCode } from '../../src/checkpoint/fixtures/capture-fixture.js';
import { SessionForker } from '../../src/fork/index.js';
import { createForkFixture, snapshotDir, type ForkFixture } from './fork-fixture.js';

let fx: ForkFixture;
let forker: SessionForker;
const children: ChildProcess[] = [];
beforeEach(async () => {
  fx = await createForkFixture();
  forker = new SessionForker({ store: fx.store, blobs: fx.blobs });
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await fx.cleanup();
});

/** Starts the fork child and resolves once it is in the middle of materializing (a staging directory exists). */
function forkChild(messageId: string, targetDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/isolated-fork-child.ts', fx.storePath, fx.sessionId, messageId, targetDir], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('materializing')) resolve(child);
    });
    child.on('exit', (code, signal) => reject(new Error(`the fork child exited (${code ?? signal}) before materializing: ${out}`)));
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

const staging = (parent: string) => readdirSync(parent).filter((name) => name.endsWith('.wp-partial'));

describe('isolated fork failures', () => {
  it('a fork killed with SIGKILL mid-materialization leaves a staging directory that the next fork into the same parent removes; a live one is kept', async () => {
    for (let index = 0; index < 8; index++) writeFileSync(join(fx.root, `file-${index}.txt`), `content ${index}\n`);
    const one = await fx.turn('one', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a\n' });
    });
    const forks = join(fx.dir, 'forks');

    const killed = await forkChild(one.replyId, join(forks, 'killed'));
    expect(staging(forks)).toHaveLength(1);
    const left = staging(forks)[0]!;
    killed.kill('SIGKILL');
    await exited(killed);
    expect(killed.signalCode).toBe('SIGKILL');
    expect(staging(forks)).toEqual([left]);

    const alive = await forkChild(one.replyId, join(forks, 'alive'));
    const aliveStaging = staging(forks).filter((name) => name !== left);
    expect(aliveStaging).toHaveLength(1);

    const result = await forker.fork({
      from: 'message',
      sessionId: fx.sessionId,
      messageId: one.replyId,
      workspace: { mode: 'isolated', dir: join(forks, 'next') },
    });
    expect(result.session.workdir).toBe(join(forks, 'next'));
    // The dead process's directory is gone, the live one's is untouched.
    expect(staging(forks)).toEqual(aliveStaging);
    expect(readdirSync(forks).sort()).toEqual([...aliveStaging, 'next'].sort());

    alive.kill('SIGKILL');
    await exited(alive);
    await forker.fork({ from: 'message', sessionId: fx.sessionId, messageId: one.replyId, workspace: { mode: 'isolated', dir: join(forks, 'last') } });
    expect(readdirSync(forks).sort()).toEqual(['last', 'next']);
  });

  it('in a git work tree, a fork killed mid-materialization leaves a work tree registration that the next fork removes with the staging directory', async () => {
    for (let index = 0; index < 8; index++) writeFileSync(join(fx.root, `file-${index}.txt`), `content ${index}\n`);
    const git = (...args: string[]) => execFileSync('git', ['-C', fx.root, ...args], { encoding: 'utf8' });
    git('init', '--quiet');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'base');
    const one = await fx.turn('one', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a\n' });
    });
    const forks = join(fx.dir, 'forks');
    const registrations = () => readdirSync(join(fx.root, '.git', 'worktrees')).sort();

    const killed = await forkChild(one.replyId, join(forks, 'killed'));
    expect(staging(forks)).toHaveLength(1);
    expect(registrations()).toEqual(['killed']);
    killed.kill('SIGKILL');
    await exited(killed);

    await forker.fork({ from: 'message', sessionId: fx.sessionId, messageId: one.replyId, workspace: { mode: 'isolated', dir: join(forks, 'next') } });
    expect(readdirSync(forks)).toEqual(['next']);
    expect(registrations()).toEqual(['next']);
    expect(git('worktree', 'list', '--porcelain')).not.toContain('prunable');
    expect(git('-C', join(forks, 'next'), 'status', '--porcelain')).toBe('?? a.txt\n');
  });

  it('copies a file over 2 GiB (sparse, so it costs no disk) byte for byte, holes kept', async () => {
    const big = join(fx.root, 'big.img');
    const size = 2 * 1024 ** 3 + 5 * 1024 ** 2 + 123;
    const marks: Array<[number, string]> = [
      [0, 'start'],
      [1024 ** 3 + 7, 'middle'],
      [2 * 1024 ** 3 + 4096, 'past 2 GiB'],
      [size - 3, 'end'],
    ];
    const fd = openSync(big, 'w');
    ftruncateSync(fd, size);
    for (const [at, text] of marks) writeSync(fd, text, at);
    closeSync(fd);
    writeFileSync(join(fx.root, 'small.txt'), 'small\n');
    const one = await fx.turn('one', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a\n' });
    });

    const target = join(fx.dir, 'child');
    const result = await forker.fork({
      from: 'message',
      sessionId: fx.sessionId,
      messageId: one.replyId,
      workspace: { mode: 'isolated', dir: target, durable: false },
    });
    expect(result.materialized!.files).toBe(3);
    const copy = join(target, 'big.img');
    expect(statSync(copy).size).toBe(size);
    // A sparse copy: far fewer blocks allocated than the size (512-byte blocks).
    expect(statSync(copy).blocks * 512).toBeLessThan(64 * 1024 ** 2);
    const check = openSync(copy, 'r');
    try {
      for (const [at, text] of marks) {
        const buffer = Buffer.alloc(text.length + 2);
        const read = readSync(check, buffer, 0, buffer.length, Math.max(at - 1, 0));
        const expected = at === 0 ? Buffer.concat([Buffer.from(text), Buffer.alloc(2)]) : Buffer.concat([Buffer.alloc(1), Buffer.from(text), Buffer.alloc(1)]);
        expect(buffer.subarray(0, read)).toEqual(expected.subarray(0, read));
      }
    } finally {
      closeSync(check);
    }
  });

  it('refuses a target on /proc or /sys, below a regular file, or with a name too long, at once and with nothing written', async () => {
    const one = await fx.turn('one', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a\n' });
    });
    writeFileSync(join(fx.dir, 'plain-file'), 'x');
    const before = snapshotDir(fx.root);
    const listing = readdirSync(fx.dir).sort();
    const sessions = (await fx.store.listSessions()).length;
    const cases: Array<[string, string]> = [
      ['/proc/waypoint-fork', 'DIRECTORY_UNUSABLE'],
      ['/proc/no-such-dir/deeper/fork', 'DIRECTORY_UNUSABLE'],
      ['/sys/kernel/waypoint-fork', 'DIRECTORY_UNUSABLE'],
      [join(fx.dir, 'plain-file', 'fork'), 'DIRECTORY_UNUSABLE'],
      [join(fx.dir, 'x'.repeat(256)), 'NAME_TOO_LONG'],
    ];
    for (const [dir, code] of cases) {
      expect({
        dir,
        code: await errorCode(() => forker.fork({ from: 'message', sessionId: fx.sessionId, messageId: one.replyId, workspace: { mode: 'isolated', dir } })),
      }).toEqual({ dir, code });
    }
    expect(existsSync('/proc/no-such-dir')).toBe(false);
    expect(snapshotDir(fx.root)).toEqual(before);
    expect(readdirSync(fx.dir).sort()).toEqual(listing);
    expect(await fx.store.listSessions()).toHaveLength(sessions);
    // A long name that fits (250 bytes) still works: its hidden staging directory's name is bounded.
    const fits = join(fx.dir, 'y'.repeat(250));
    expect(
      (await forker.fork({ from: 'message', sessionId: fx.sessionId, messageId: one.replyId, workspace: { mode: 'isolated', dir: fits } })).session.workdir,
    ).toBe(fits);
  });
});
