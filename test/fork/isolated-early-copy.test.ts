import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyToolWrite, CheckpointedFs } from '../../src/checkpoint/index.js';
import { SessionForker } from '../../src/fork/index.js';
import { readIndexFile } from '../../src/fork/git-index-reader.js';
import { writeIndexCopy } from '../../src/fork/git-index-writer.js';
import { createForkFixture, snapshotDir, type ForkFixture } from './fork-fixture.js';

// Enough tracked files that the fork copies them on worker threads as soon as it has read the
// index, before git has listed the untracked and ignored ones.
const TRACKED = 2300;

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

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const status = (cwd: string) => git(cwd, 'status', '--porcelain=v1', '--untracked-files=all');
const withoutGit = (snapshot: ReturnType<typeof snapshotDir>) => Object.fromEntries(Object.entries(snapshot).filter(([path]) => !/^\.git(\/|$)/.test(path)));

/** A committed repository of {@link TRACKED} files in nested directories (some executable, one a link, one binary), ignored dependencies, and uncommitted work. */
function createRepository(): void {
  for (let index = 0; index < TRACKED; index++) {
    const path = join(fx.root, 'src', `d${index % 7}`, `e${index % 13}`, `f${index}.ts`);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, `export const value${index} = ${index};\n`);
    if (index % 50 === 0) chmodSync(path, 0o755);
  }
  writeFileSync(join(fx.root, 'binary.bin'), Buffer.from([0, 255, 1, 254, 0, 0, 10, 13]));
  writeFileSync(join(fx.root, '.gitignore'), 'node_modules/\n');
  symlinkSync('src/d0/e0/f0.ts', join(fx.root, 'link'));
  git(fx.root, 'init', '--quiet');
  git(fx.root, 'add', '-A');
  git(fx.root, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'base');
  mkdirSync(join(fx.root, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(fx.root, 'node_modules', 'dep', 'index.js'), 'module.exports = 42;\n');
  // Uncommitted work before the fork point: a staged change, an unstaged one, an untracked file.
  writeFileSync(join(fx.root, 'src', 'd1', 'e1', 'f1.ts'), 'staged\n');
  git(fx.root, 'add', 'src/d1/e1/f1.ts');
  writeFileSync(join(fx.root, 'src', 'd2', 'e2', 'f2.ts'), 'unstaged\n');
  writeFileSync(join(fx.root, 'notes.md'), 'untracked\n');
}

describe('isolated fork of a big git work tree (tracked files copied before git lists the rest)', () => {
  it("holds exactly the fork-point tree and git status there is the parent's at the fork point, with changes after it undone", async () => {
    createRepository();
    const one = await fx.turn('one', async (context) => {
      await applyToolWrite(context, { path: 'src/d3/e3/f3.ts', content: 'at the fork point\n' });
    });
    const expected = withoutGit(snapshotDir(fx.root));
    const expectedStatus = status(fx.root);
    await fx.turn('two', async (context) => {
      await applyToolWrite(context, { path: 'src/d3/e3/f3.ts', content: 'after the fork point\n' });
      await applyToolWrite(context, { path: 'src/d4/e4/new.ts', content: 'created after the fork point\n' });
      const fs = new CheckpointedFs(context);
      await fs.rename('src/d5/e5/f5.ts', 'src/d5/e5/moved.ts');
      await fs.deleteFile('src/d6/e6/f6.ts');
    });
    expect(status(fx.root)).not.toBe(expectedStatus);

    // The parent's index written a few seconds after its files (however fast the setup ran), so its entries are not racily clean.
    const later = Date.now() / 1000 + 5;
    utimesSync(join(fx.root, '.git', 'index'), later, later);
    const target = join(fx.dir, 'fork');
    let reported = 0;
    const result = await forker.fork({
      from: 'message',
      sessionId: fx.sessionId,
      messageId: one.replyId,
      workspace: { mode: 'isolated', dir: target, durable: false },
      onProgress: (done) => {
        reported = done;
      },
    });
    expect(withoutGit(snapshotDir(target))).toEqual(expected);
    expect(status(target)).toBe(expectedStatus);
    expect(git(target, 'diff', '--cached', '--name-only')).toBe('src/d1/e1/f1.ts\n');
    // The index is the parent's with the copies' stat data: an unchanged file's entry names the copy's
    // inode, git reads it as valid (checksum, objects) and finds what the parent's git finds.
    expect(git(target, 'ls-files', '--debug', '--', 'src/d0/e7/f7.ts')).toContain(`ino: ${statSync(join(target, 'src/d0/e7/f7.ts')).ino}\n`);
    expect(git(target, 'ls-files', '--debug', '--', 'src/d2/e2/f2.ts')).not.toContain(`ino: ${statSync(join(target, 'src/d2/e2/f2.ts')).ino}\n`);
    // Only what differed from the index at the fork point: the unstaged change and the change made before the fork point.
    expect(git(target, 'diff-files', '--name-status')).toBe('M\tsrc/d2/e2/f2.ts\nM\tsrc/d3/e3/f3.ts\n');
    git(target, 'fsck', '--no-progress', '--no-dangling');
    const report = result.materialized!;
    expect(report.git).toMatchObject({ index: 'copied' });
    expect(report.restored.sort()).toEqual(['workspace:src/d3/e3/f3.ts', 'workspace:src/d5/e5/f5.ts', 'workspace:src/d6/e6/f6.ts']);
    expect(report.notCopied).toEqual([]);
    // The tracked files, the untracked notes; the ignored dependency is counted apart, progress counts it too.
    expect(report.files).toBe(TRACKED + 4);
    expect(report.ignored).toMatchObject([{ path: 'node_modules/', action: 'copy', files: 1 }]);
    expect(reported).toBe(TRACKED + 4 + 1);
  });

  it("an entry racily clean in the parent (its file changed in the second its index was written) keeps the parent's stat data, so git in the fork reads the file", async () => {
    createRepository();
    // The entry of f4 names the committed content while its stat data describe new content of the
    // same size, written in the second the index was: only reading the file shows the change.
    const path = 'src/d4/e4/f4.ts';
    const committed = git(fx.root, 'rev-parse', `HEAD:${path}`).trim();
    writeFileSync(join(fx.root, path), 'export const value4 = 9;\n');
    git(fx.root, 'add', path);
    const indexPath = join(fx.root, '.git', 'index');
    const parentIndex = readIndexFile(indexPath)!;
    const at = parentIndex.offsets[parentIndex.entries.findIndex((entry) => entry.path === path)]!;
    const data = Buffer.from(parentIndex.data);
    Buffer.from(committed, 'hex').copy(data, at + 40);
    rmSync(indexPath);
    writeIndexCopy(join(fx.root, '.git'), data);
    const changed = statSync(join(fx.root, path)).mtime;
    utimesSync(indexPath, changed, changed);
    const one = await fx.turn('one');
    const target = join(fx.dir, 'fork');
    const { materialized } = await forker.fork({
      from: 'message',
      sessionId: fx.sessionId,
      messageId: one.replyId,
      workspace: { mode: 'isolated', dir: target, durable: false },
    });
    // As when the copies were made a second or more before the fork's index: git trusts each entry whose stat data match.
    const later = Date.now() / 1000 + 5;
    utimesSync(join(materialized!.git!.registration, 'index'), later, later);
    expect(status(target)).toContain(` M ${path}\n`);
    // The parent's git asked only now (its status rewrites the index, smudging that entry).
    expect(status(target)).toBe(status(fx.root));
  });

  it('a tracked directory that is a link now is a link in the fork; the tracked files git lists below it are reported, not copied through the link', async () => {
    createRepository();
    mkdirSync(join(fx.root, 'lib'));
    writeFileSync(join(fx.root, 'lib', 'x.ts'), 'x\n');
    writeFileSync(join(fx.root, 'lib', 'y.ts'), 'y\n');
    git(fx.root, 'add', 'lib');
    git(fx.root, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'lib');
    rmSync(join(fx.root, 'lib'), { recursive: true });
    symlinkSync('src/d0', join(fx.root, 'lib'));
    const one = await fx.turn('one');
    const target = join(fx.dir, 'fork');
    const result = await forker.fork({
      from: 'message',
      sessionId: fx.sessionId,
      messageId: one.replyId,
      workspace: { mode: 'isolated', dir: target, durable: false },
    });
    expect(withoutGit(snapshotDir(target))).toEqual(withoutGit(snapshotDir(fx.root)));
    expect(readlinkSync(join(target, 'lib'))).toBe('src/d0');
    expect(status(target)).toBe(status(fx.root));
    expect(result.materialized!.notCopied.map((entry) => [entry.path, entry.reason])).toEqual([
      ['lib/x.ts', 'conflict'],
      ['lib/y.ts', 'conflict'],
    ]);
  });

  it("with per-work-tree config on, the copy does not wait for git worktree add: the registration made beside the tree is moved into it, listed, and status is the parent's", async () => {
    createRepository();
    git(fx.root, 'config', 'extensions.worktreeConfig', 'true');
    const one = await fx.turn('one');
    const expected = withoutGit(snapshotDir(fx.root));
    const forks = join(fx.dir, 'forks');
    const result = await forker.fork({
      from: 'message',
      sessionId: fx.sessionId,
      messageId: one.replyId,
      workspace: { mode: 'isolated', dir: join(forks, 'w'), durable: false },
    });
    const dir = result.materialized!.dir;
    expect(withoutGit(snapshotDir(dir))).toEqual(expected);
    expect(status(dir)).toBe(status(fx.root));
    expect(git(fx.root, 'worktree', 'list', '--porcelain')).toContain(`worktree ${dir}\nHEAD ${git(fx.root, 'rev-parse', 'HEAD').trim()}\ndetached`);
    // git's own registration (it keeps a reflog), pointing at the fork's place; nothing left of the directory git was given.
    expect(existsSync(join(result.materialized!.git!.registration, 'logs', 'HEAD'))).toBe(true);
    expect(readdirSync(forks)).toEqual(['w']);
    expect(git(dir, 'rev-parse', '--show-toplevel').trim()).toBe(dir);
    expect(git(fx.root, 'worktree', 'list', '--porcelain')).not.toContain('prunable');
  });

  it('a fork killed while its workers copy leaves no fork recorded, and the next fork removes its staging directory and registration', async () => {
    createRepository();
    const one = await fx.turn('one', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a\n' });
    });
    const forks = join(fx.dir, 'forks');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/fixtures/isolated-fork-child.ts', fx.storePath, fx.sessionId, one.replyId, join(forks, 'killed')],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('materializing')) resolve();
      });
      child.on('exit', (code, signal) => reject(new Error(`the fork child exited (${code ?? signal}) before materializing: ${out}`)));
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => (child.signalCode !== null ? resolve(null) : child.once('exit', resolve)));
    expect(child.signalCode).toBe('SIGKILL');
    expect(existsSync(join(forks, 'killed'))).toBe(false);
    expect((await fx.store.listSessions()).map((session) => session.workdir)).toEqual([fx.root]);

    const next = await forker.fork({
      from: 'message',
      sessionId: fx.sessionId,
      messageId: one.replyId,
      workspace: { mode: 'isolated', dir: join(forks, 'next') },
    });
    expect(readdirSync(forks)).toEqual(['next']);
    expect(readdirSync(join(fx.root, '.git', 'worktrees'))).toEqual(['next']);
    expect(git(fx.root, 'worktree', 'list', '--porcelain')).not.toContain('prunable');
    expect(status(next.session.workdir!)).toBe(status(fx.root));
  });
});
