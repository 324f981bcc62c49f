import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyToolWrite, captureExec, CheckpointedFs } from '../../src/checkpoint/index.js';
import { BlobStore } from '../../src/blobs/index.js';
import { discardWorkTree, SessionForker } from '../../src/fork/index.js';
import { SqliteStore } from '../../src/store/index.js';
import { createForkFixture, snapshotDir, type ForkFixture } from './fork-fixture.js';

let fx: ForkFixture;
let forker: SessionForker;
beforeEach(async () => {
  fx = await createForkFixture();
  forker = new SessionForker({ store: fx.store, blobs: fx.blobs });
});
afterEach(async () => fx.cleanup());

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const status = (cwd: string) => git(cwd, 'status', '--porcelain=v1', '--untracked-files=all');
/** The tree without git's own files (`.git`: a directory in the parent, a file in a linked work tree). */
const withoutGit = (snapshot: ReturnType<typeof snapshotDir>) => Object.fromEntries(Object.entries(snapshot).filter(([path]) => !/^\.git(\/|$)/.test(path)));
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const write = (path: string, content: string, mode = 0o644) => {
  mkdirSync(join(fx.root, path, '..'), { recursive: true });
  writeFileSync(join(fx.root, path), content);
  chmodSync(join(fx.root, path), mode);
};

/**
 * A project as people have them: dotfiles, an executable, a symlink, a force-added file an ignore
 * rule matches, a nested negation, ignored node_modules and build output, committed once.
 */
function createRepository(): string {
  write('.gitignore', '*.log\nnode_modules/\ndist/\n');
  write('.env.example', 'TOKEN=\n');
  write('.github/workflows/ci.yml', 'on: push\n');
  write('bin/run.sh', '#!/bin/sh\necho run\n', 0o755);
  write('src/a.ts', 'export const a = 1;\n');
  write('src/b.ts', 'export const b = 1;\n');
  write('fixtures/sample.log', 'a force-added fixture\n');
  write('fixtures/untouched.log', 'a force-added fixture nobody changes\n');
  write('sub/.gitignore', '!keep.log\n');
  write('sub/keep.log', 'kept by a nested negation\n');
  write('package.json', '{ "scripts": { "test": "node test.js" } }\n');
  write('test.js', "const dep = require('dep');\nif (dep.answer !== 42) process.exit(3);\nconsole.log('tests pass');\n");
  symlinkSync('src/a.ts', join(fx.root, 'link'));
  git(fx.root, 'init', '--quiet');
  git(fx.root, 'add', '-A');
  git(fx.root, 'add', '--force', 'fixtures/sample.log', 'fixtures/untouched.log');
  git(fx.root, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'base');
  write('node_modules/dep/index.js', 'module.exports = { answer: 42 };\n');
  write('node_modules/dep/package.json', '{ "name": "dep", "main": "index.js" }\n');
  write('dist/out.js', 'built\n');
  return git(fx.root, 'rev-parse', 'HEAD').trim();
}

describe('isolated fork of a git work tree', () => {
  it("is a detached work tree at the parent's HEAD holding exactly the fork-point files; git status there is the parent's at the fork point; the parent's files, index and refs are untouched", async () => {
    const head = createRepository();
    // A person's uncommitted work before the fork point: a modified tracked file, an untracked one.
    write('src/b.ts', 'export const b = 2; // by hand\n');
    write('notes.md', 'untracked notes\n');
    const one = await fx.turn('one', async (context) => {
      await applyToolWrite(context, { path: 'src/a.ts', content: 'export const a = 2;\n' });
      await applyToolWrite(context, { path: 'fixtures/sample.log', content: 'fixture at the fork point\n' });
    });
    const expected = withoutGit(snapshotDir(fx.root));
    const expectedStatus = status(fx.root);

    await fx.turn('two', async (context) => {
      await applyToolWrite(context, { path: 'src/a.ts', content: 'export const a = 3;\n' });
      await applyToolWrite(context, { path: 'fixtures/sample.log', content: 'changed after\n' });
      const fs = new CheckpointedFs(context);
      await fs.rename('src/b.ts', 'src/b2.ts');
      await fs.deleteFile('.env.example');
      await captureExec(
        context,
        () => {
          chmodSync(join(fx.root, 'bin/run.sh'), 0o644);
          writeFileSync(join(fx.root, 'shell.txt'), 'x\n');
        },
        { command: 'chmod -x bin/run.sh; echo x > shell.txt' },
      );
    });
    const parentFiles = withoutGit(snapshotDir(fx.root));
    const parentStatus = status(fx.root);
    const parentIndex = sha(join(fx.root, '.git/index'));
    const parentRefs = git(fx.root, 'for-each-ref');

    const target = join(fx.dir, 'strategy-b');
    const result = await forker.fork({ from: 'message', sessionId: fx.sessionId, messageId: one.replyId, workspace: { mode: 'isolated', dir: target } });

    expect(withoutGit(snapshotDir(target))).toEqual(expected);
    expect(status(target)).toBe(expectedStatus);
    expect(git(target, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(spawnSync('git', ['-C', target, 'symbolic-ref', '-q', 'HEAD']).status).not.toBe(0);
    expect(git(fx.root, 'worktree', 'list', '--porcelain')).toContain(`worktree ${target}\nHEAD ${head}\ndetached`);
    expect(withoutGit(snapshotDir(fx.root))).toEqual(parentFiles);
    expect(status(fx.root)).toBe(parentStatus);
    expect(sha(join(fx.root, '.git/index'))).toBe(parentIndex);
    expect(git(fx.root, 'for-each-ref')).toBe(parentRefs);

    const report = result.materialized!;
    expect(report.git).toEqual({
      worktree: target,
      commit: head,
      parentBranch: git(fx.root, 'symbolic-ref', '--short', 'HEAD').trim(),
      registration: expect.stringMatching(/\/\.git\/worktrees\/strategy-b$/),
      index: 'copied',
    });
    expect(report.gitSkipped).toBeNull();
    expect(report.restored).toEqual([
      'workspace:.env.example',
      'workspace:bin/run.sh',
      'workspace:fixtures/sample.log',
      'workspace:src/a.ts',
      'workspace:src/b.ts',
    ]);
    expect(report.files).toBe(Object.keys(expected).length - 3);
    expect(report.ignored).toEqual([
      { path: 'dist/', action: 'copy', files: 1, bytes: 6 },
      { path: 'node_modules/', action: 'copy', files: 2, bytes: expect.any(Number) },
    ]);
    expect(report.notCopied).toEqual([]);
  });

  it('--ignored copy, link and omit: npm-test-style runs work with copy and link (a link writes through to the parent), and fail with omit', async () => {
    createRepository();
    const one = await fx.turn('one', async (context) => {
      await applyToolWrite(context, { path: 'src/a.ts', content: 'export const a = 2;\n' });
    });
    const runTests = (dir: string) => spawnSync(process.execPath, ['test.js'], { cwd: dir, encoding: 'utf8' });
    const fork = (ignored: 'copy' | 'link' | 'omit') =>
      forker.fork({ from: 'message', sessionId: fx.sessionId, messageId: one.replyId, workspace: { mode: 'isolated', dir: join(fx.dir, ignored), ignored } });

    const copied = (await fork('copy')).materialized!;
    expect(runTests(copied.dir)).toMatchObject({ status: 0, stdout: 'tests pass\n' });
    expect(lstatSync(join(copied.dir, 'node_modules')).isDirectory()).toBe(true);
    writeFileSync(join(copied.dir, 'node_modules/dep/index.js'), 'module.exports = { answer: 0 };\n');
    expect(readFileSync(join(fx.root, 'node_modules/dep/index.js'), 'utf8')).toBe('module.exports = { answer: 42 };\n');

    const linked = (await fork('link')).materialized!;
    expect(runTests(linked.dir)).toMatchObject({ status: 0, stdout: 'tests pass\n' });
    expect(lstatSync(join(linked.dir, 'node_modules')).isDirectory()).toBe(true);
    expect(readlinkSync(join(linked.dir, 'node_modules/dep'))).toBe(join(fx.root, 'node_modules/dep'));
    expect(linked.ignored).toEqual([
      { path: 'dist/', action: 'link', files: 1, bytes: Buffer.byteLength(join(fx.root, 'dist/out.js')) },
      { path: 'node_modules/', action: 'link', files: 1, bytes: Buffer.byteLength(join(fx.root, 'node_modules/dep')) },
    ]);
    // What the fork writes through a link lands in the parent's file: the price of linking.
    writeFileSync(join(linked.dir, 'dist/out.js'), 'rebuilt in the fork\n');
    expect(readFileSync(join(fx.root, 'dist/out.js'), 'utf8')).toBe('rebuilt in the fork\n');
    // A new entry in a linked directory stays in the fork.
    writeFileSync(join(linked.dir, 'dist/extra.js'), 'only in the fork\n');
    expect(existsSync(join(fx.root, 'dist/extra.js'))).toBe(false);
    expect(status(linked.dir)).toBe(' M src/a.ts\n');

    const omitted = (await fork('omit')).materialized!;
    const failed = runTests(omitted.dir);
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toContain("Cannot find module 'dep'");
    expect(existsSync(join(omitted.dir, 'node_modules'))).toBe(false);
    expect(omitted.ignored.map(({ path, action, files }) => ({ path, action, files }))).toEqual([
      { path: 'dist/', action: 'omit', files: 0 },
      { path: 'node_modules/', action: 'omit', files: 0 },
    ]);
  });

  it('a link is not made for an ignored directory holding a file restored to the fork point: it is copied and the report says why', async () => {
    createRepository();
    const one = await fx.turn('one');
    await fx.turn('two', async (context) => {
      await applyToolWrite(context, { path: 'dist/out.js', content: 'rebuilt after the fork point\n' });
    });
    const { materialized } = await forker.fork({
      from: 'message',
      sessionId: fx.sessionId,
      messageId: one.replyId,
      workspace: { mode: 'isolated', dir: join(fx.dir, 'b'), ignored: 'link' },
    });
    expect(readFileSync(join(fx.dir, 'b/dist/out.js'), 'utf8')).toBe('built\n');
    expect(readFileSync(join(fx.root, 'dist/out.js'), 'utf8')).toBe('rebuilt after the fork point\n');
    expect(materialized!.ignored[0]).toEqual({
      path: 'dist/',
      action: 'copy',
      files: 1,
      bytes: 6,
      note: 'holds files restored to the fork point, so it is copied rather than linked',
    });
  });

  it('reports what it could not copy (a submodule, a tracked file deleted without a checkpoint) and a file staged as new in the parent is staged in the fork too', async () => {
    const head = createRepository();
    git(fx.root, 'update-index', '--add', '--cacheinfo', `160000,${head},vendor/lib`);
    unlinkSync(join(fx.root, '.github/workflows/ci.yml'));
    write('src/new.ts', 'export const fresh = true;\n');
    git(fx.root, 'add', 'src/new.ts');
    const one = await fx.turn('one');
    const { materialized } = await forker.fork({
      from: 'message',
      sessionId: fx.sessionId,
      messageId: one.replyId,
      workspace: { mode: 'isolated', dir: join(fx.dir, 'c') },
    });
    expect(materialized!.notCopied).toEqual([
      { path: '.github/workflows/ci.yml', reason: 'missing' },
      { path: 'vendor/lib', reason: 'submodule' },
    ]);
    expect(materialized!.git!.index).toBe('copied');
    expect(readFileSync(join(fx.dir, 'c/src/new.ts'), 'utf8')).toBe('export const fresh = true;\n');
    // The parent's staging comes along: git status in the fork is the parent's, line for line.
    expect(status(join(fx.dir, 'c'))).toBe(status(fx.root));
    expect(status(fx.root)).toContain('A  src/new.ts\n');
  });

  it("deleting the fork's directory with discardWorkTree, or a fork whose child cannot be committed, leaves no work tree registered in the parent's repository", async () => {
    createRepository();
    const one = await fx.turn('one');
    const { materialized } = await forker.fork({
      from: 'message',
      sessionId: fx.sessionId,
      messageId: one.replyId,
      workspace: { mode: 'isolated', dir: join(fx.dir, 'd') },
    });
    expect(git(fx.root, 'worktree', 'list', '--porcelain')).toContain(`worktree ${materialized!.dir}`);
    discardWorkTree(materialized!.dir);
    expect(existsSync(materialized!.dir)).toBe(false);
    const only = `worktree ${fx.root}\n`;
    expect(git(fx.root, 'worktree', 'list', '--porcelain').match(/^worktree .*$/gm)).toEqual([only.trim()]);

    const original = fx.store.forkSession.bind(fx.store);
    fx.store.forkSession = async () => {
      throw new Error('commit failed');
    };
    await expect(
      forker.fork({ from: 'message', sessionId: fx.sessionId, messageId: one.replyId, workspace: { mode: 'isolated', dir: join(fx.dir, 'e') } }),
    ).rejects.toThrow('commit failed');
    fx.store.forkSession = original;
    expect(existsSync(join(fx.dir, 'e'))).toBe(false);
    expect(git(fx.root, 'worktree', 'list', '--porcelain').match(/^worktree .*$/gm)).toEqual([only.trim()]);
  });

  it('with per-work-tree config on, registers the work tree through git worktree add: it is listed, status is clean, and discarding it unregisters it', async () => {
    createRepository();
    git(fx.root, 'config', 'extensions.worktreeConfig', 'true');
    const one = await fx.turn('one');
    const { materialized } = await forker.fork({
      from: 'message',
      sessionId: fx.sessionId,
      messageId: one.replyId,
      workspace: { mode: 'isolated', dir: join(fx.dir, 'w') },
    });
    expect(git(fx.root, 'worktree', 'list', '--porcelain')).toContain(
      `worktree ${materialized!.dir}\nHEAD ${git(fx.root, 'rev-parse', 'HEAD').trim()}\ndetached`,
    );
    expect(status(materialized!.dir)).toBe(status(fx.root));
    // git's own registration keeps a reflog; the one the fork writes itself does not.
    expect(existsSync(join(materialized!.git!.registration, 'logs', 'HEAD'))).toBe(true);
    discardWorkTree(materialized!.dir);
    expect(git(fx.root, 'worktree', 'list', '--porcelain').match(/^worktree .*$/gm)).toEqual([`worktree ${fx.root}`]);
  });

  it("never copies Waypoint's own store kept inside the workspace (not ignored by git), and says so once", async () => {
    createRepository();
    const inside = await SqliteStore.open({ path: join(fx.root, '.waypoint', 'w.db') });
    try {
      const session = await inside.createSession({ title: 'Inside', workdir: fx.root });
      const { message } = await inside.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'hi' }] });
      expect(status(fx.root)).toContain('?? .waypoint/');
      const { materialized } = await new SessionForker({ store: inside, blobs: new BlobStore(inside) }).fork({
        from: 'message',
        sessionId: session.id,
        messageId: message.id,
        workspace: { mode: 'isolated', dir: join(fx.dir, 'g') },
      });
      expect(existsSync(join(fx.dir, 'g', '.waypoint'))).toBe(false);
      expect(materialized!.notCopied).toEqual([{ path: '.waypoint', reason: 'store_file' }]);
      expect(readFileSync(join(fx.dir, 'g', 'src/a.ts'), 'utf8')).toBe('export const a = 1;\n');
    } finally {
      await inside.close();
    }
  });

  it('a workspace that is a subdirectory of a git work tree gets a plain copy, and the report says why', async () => {
    write('inner/file.txt', 'x\n');
    git(fx.root, 'init', '--quiet');
    const nested = await fx.store.createSession({ title: 'Inner', workdir: join(fx.root, 'inner') });
    const { message } = await fx.store.appendMessage({ sessionId: nested.id, role: 'user', parts: [{ type: 'text', text: 'hi' }] });
    const { materialized } = await forker.fork({
      from: 'message',
      sessionId: nested.id,
      messageId: message.id,
      workspace: { mode: 'isolated', dir: join(fx.dir, 'f') },
    });
    expect(materialized!.git).toBeNull();
    expect(materialized!.gitSkipped).toBe('subdirectory_of_work_tree');
    expect(withoutGit(snapshotDir(join(fx.dir, 'f')))).toEqual(withoutGit(snapshotDir(join(fx.root, 'inner'))));
  });
});
