import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffSnapshots } from './diff-snapshots.js';
import { nodeScanIo } from './scan-io.js';
import { scanWorkspace } from './scanner.js';
import type { StatCacheState } from './stat-cache.js';
import { Workspace } from './workspace.js';

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const HOUR_AGO = (Date.now() - 3_600_000) / 1000;

function setup(files: Record<string, string> = {}) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'wp-scan-')));
  for (const [path, content] of Object.entries(files)) write(dir, path, content);
  const workspace = new Workspace({ roots: [{ name: 'workspace', dir, kind: 'workspace' }], excludedDirs: [join(dir, '.waypoint')] });
  return { dir, workspace };
}

function write(dir: string, path: string, content: string | Buffer, old = true) {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), content);
  // Backdate so the entry is not racy and the stat cache may trust it.
  if (old) utimesSync(join(dir, path), HOUR_AGO, HOUR_AGO);
}

function hashedPaths(run: (onContent: (path: string) => void) => void): string[] {
  const paths: string[] = [];
  run((path) => paths.push(path));
  return paths.sort();
}

describe('scanWorkspace', () => {
  it('records every tracked file with sha256, size and mode, and hands out the bytes it read', () => {
    const { dir, workspace } = setup({ 'a.txt': 'alpha', 'src/deep/b.ts': 'beta' });
    chmodSync(join(dir, 'a.txt'), 0o755);
    symlinkSync('a.txt', join(dir, 'link'));
    const contents = new Map<string, string>();
    const result = scanWorkspace(workspace, {
      onContent: (path, content, hash) => {
        expect(hash).toBe(sha256(content));
        contents.set(path, content.toString());
      },
    });
    expect([...result.snapshot.keys()].sort()).toEqual(['workspace:a.txt', 'workspace:link', 'workspace:src/deep/b.ts']);
    expect(result.snapshot.get('workspace:a.txt')).toMatchObject({ kind: 'file', hash: sha256('alpha'), size: 5, mode: 0o755 });
    expect(result.snapshot.get('workspace:link')).toMatchObject({ kind: 'symlink', hash: sha256('a.txt') });
    expect(contents.get('workspace:src/deep/b.ts')).toBe('beta');
    expect(result.stats).toMatchObject({ files: 3, hashed: 3, cacheHits: 0 });
    expect(result.complete).toBe(true);
    expect(JSON.parse(JSON.stringify(result.cache))).toEqual(result.cache);
  });

  it("passes over Waypoint's own temp files (an atomic write in flight, or one a crash left), but not look-alikes", () => {
    const { workspace } = setup({ 'notes.txt': 'n', 'src/.a.ts.0123456789ab.wp-tmp': 'half', '.b.wp-tmp': 'user file', 'c.0123456789ab.wp-tmp': 'user file' });
    const result = scanWorkspace(workspace);
    expect([...result.snapshot.keys()].sort()).toEqual(['workspace:.b.wp-tmp', 'workspace:c.0123456789ab.wp-tmp', 'workspace:notes.txt']);
  });

  it('applies .gitignore at nested depths, negations and .waypointignore, and reports what it ignored', () => {
    const { workspace } = setup({
      '.gitignore': 'build/\n*.log\n',
      'keep.log': 'x',
      'build/out.js': 'x',
      'src/app.ts': 'x',
      'src/.gitignore': 'generated/\n!important.log\n',
      'src/important.log': 'x',
      'src/other.log': 'x',
      'src/generated/g.ts': 'x',
      'src/lib/deeper/.gitignore': '/local.txt\n',
      'src/lib/deeper/local.txt': 'x',
      'src/lib/deeper/nested/local.txt': 'x',
      '.waypointignore': 'secrets/\n',
      'secrets/key.pem': 'x',
    });
    const result = scanWorkspace(workspace);
    expect([...result.snapshot.keys()].sort()).toEqual([
      'workspace:.gitignore',
      'workspace:.waypointignore',
      'workspace:src/.gitignore',
      'workspace:src/app.ts',
      'workspace:src/important.log',
      'workspace:src/lib/deeper/.gitignore',
      'workspace:src/lib/deeper/nested/local.txt',
    ]);
    const ignored = result.skipped
      .filter((skip) => skip.reason === 'ignored')
      .map((skip) => skip.path)
      .sort();
    expect(ignored).toEqual([
      'workspace:build',
      'workspace:keep.log',
      'workspace:secrets',
      'workspace:src/generated',
      'workspace:src/lib/deeper/local.txt',
      'workspace:src/other.log',
    ]);
  });

  it('skips .git, excluded directories and other roots nested inside, and scans custom roots but not data roots', () => {
    const { dir } = setup({ '.git/HEAD': 'ref', '.waypoint/store.db': 'db', 'data/cache.json': '{}', 'notes/n.md': 'n', 'a.txt': 'a' });
    const workspace = new Workspace({
      roots: [
        { name: 'workspace', dir, kind: 'workspace' },
        { name: 'data', dir: join(dir, 'data'), kind: 'data' },
        { name: 'notes', dir: join(dir, 'notes'), kind: 'custom' },
      ],
      excludedDirs: [join(dir, '.waypoint')],
    });
    const result = scanWorkspace(workspace);
    expect([...result.snapshot.keys()].sort()).toEqual(['notes:n.md', 'workspace:a.txt']);
  });

  it('reports files above maxFileSize as too_large without reading them, keeping them in the snapshot', () => {
    const { workspace } = setup({ 'big.bin': 'x'.repeat(2000), 'small.txt': 'y' });
    const read = hashedPaths((onContent) => {
      const result = scanWorkspace(workspace, { maxFileSize: 1000, onContent });
      expect(result.skipped).toEqual([expect.objectContaining({ path: 'workspace:big.bin', reason: 'too_large', size: 2000 })]);
      expect(result.snapshot.get('workspace:big.bin')).toMatchObject({ hash: null, size: 2000 });
    });
    expect(read).toEqual(['workspace:small.txt']);
  });

  it('stops at maxFiles, reporting too_many_files and an incomplete scan', () => {
    const { workspace } = setup({ a: '1', b: '2', c: '3', d: '4' });
    const result = scanWorkspace(workspace, { maxFiles: 2 });
    expect(result.complete).toBe(false);
    expect(result.snapshot.size).toBe(2);
    expect(result.skipped).toEqual([expect.objectContaining({ path: 'workspace:', reason: 'too_many_files' })]);
  });

  it('reports sockets and FIFOs as not_regular', async () => {
    const { dir, workspace } = setup({ 'a.txt': 'a' });
    const { createServer } = await import('node:net');
    const server = createServer();
    await new Promise<void>((done) => server.listen(join(dir, 's.sock'), done));
    try {
      const result = scanWorkspace(workspace);
      expect(result.skipped).toEqual([{ path: 'workspace:s.sock', reason: 'not_regular' }]);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it.skipIf(process.getuid?.() === 0)('reports unreadable files with a null hash (needs a non-root user)', () => {
    const { dir, workspace } = setup({ 'locked.txt': 'x' });
    chmodSync(join(dir, 'locked.txt'), 0o000);
    const result = scanWorkspace(workspace);
    expect(result.skipped).toEqual([expect.objectContaining({ path: 'workspace:locked.txt', reason: 'unreadable', detail: 'EACCES' })]);
    expect(result.snapshot.get('workspace:locked.txt')?.hash).toBeNull();
  });

  it('re-hashes only files whose stat signature changed', () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 30; index++) files[`dir${index % 3}/f${index}.txt`] = `content ${index}`;
    const { dir, workspace } = setup(files);
    const first = scanWorkspace(workspace);
    expect(first.stats.hashed).toBe(30);

    const unchanged = hashedPaths((onContent) => {
      const again = scanWorkspace(workspace, { cache: first.cache, onContent });
      expect(again.stats).toMatchObject({ hashed: 0, cacheHits: 30 });
      expect(diffSnapshots(first.snapshot, again.snapshot)).toEqual({ created: [], modified: [], deleted: [] });
    });
    expect(unchanged).toEqual([]);

    write(dir, 'dir0/f0.txt', 'changed');
    write(dir, 'dir1/f1.txt', 'content 1'); // same bytes, new mtime/ctime: re-read, but not a change
    chmodSync(join(dir, 'dir2/f2.txt'), 0o700); // mode only
    write(dir, 'new.txt', 'new');
    rmSync(join(dir, 'dir2/f5.txt'));
    let after!: ReturnType<typeof scanWorkspace>;
    const reread = hashedPaths((onContent) => {
      after = scanWorkspace(workspace, { cache: first.cache, onContent });
    });
    expect(reread).toEqual(['workspace:dir0/f0.txt', 'workspace:dir1/f1.txt', 'workspace:dir2/f2.txt', 'workspace:new.txt']);
    const diff = diffSnapshots(first.snapshot, after.snapshot);
    expect(diff.created).toEqual([{ path: 'workspace:new.txt', kind: 'file', hash: sha256('new'), size: 3, mode: expect.any(Number) }]);
    expect(diff.deleted).toEqual([expect.objectContaining({ path: 'workspace:dir2/f5.txt', hash: sha256('content 5') })]);
    expect(diff.modified.map((change) => change.path)).toEqual(['workspace:dir0/f0.txt', 'workspace:dir2/f2.txt']);
    expect(diff.modified[0]).toMatchObject({ before: { hash: sha256('content 0') }, after: { hash: sha256('changed') } });
    expect(diff.modified[1]).toMatchObject({ before: { mode: first.snapshot.get('workspace:dir2/f2.txt')!.mode }, after: { mode: 0o700 } });
  });

  it('ignores a cache in an unknown format instead of trusting it', () => {
    const { workspace } = setup({ 'a.txt': 'a' });
    const result = scanWorkspace(workspace, { cache: { version: 99 } as unknown as StatCacheState });
    expect(result.stats.hashed).toBe(1);
  });

  it('detects a same-size rewrite that lands in the same timestamp tick as the previous scan (racy mtime)', () => {
    // A filesystem with 1-second timestamps (HFS+, many network mounts): simulate it by truncating
    // the times lstat reports, so a rewrite within the same second leaves the stat signature
    // identical. Only the racy rule can catch it.
    const coarse = {
      lstat(path: string) {
        const stats = nodeScanIo.lstat(path);
        return Object.assign(Object.create(Object.getPrototypeOf(stats)), stats, {
          mtimeMs: Math.floor(stats.mtimeMs / 1000) * 1000,
          ctimeMs: Math.floor(stats.ctimeMs / 1000) * 1000,
        });
      },
    };
    for (let attempt = 0; ; attempt++) {
      const { dir, workspace } = setup();
      write(dir, 'racy.txt', 'aaaa', false);
      const startSecond = Math.floor(Date.now() / 1000);
      const first = scanWorkspace(workspace, { io: coarse });
      write(dir, 'racy.txt', 'bbbb', false);
      const second = scanWorkspace(workspace, { io: coarse, cache: first.cache });
      if (Math.floor(Date.now() / 1000) !== startSecond && attempt < 5) continue; // crossed a second: retry
      expect(first.snapshot.get('workspace:racy.txt')!.mtimeMs).toBe(second.snapshot.get('workspace:racy.txt')!.mtimeMs);
      expect(second.snapshot.get('workspace:racy.txt')!.hash).toBe(sha256('bbbb'));
      expect(diffSnapshots(first.snapshot, second.snapshot).modified.map((change) => change.path)).toEqual(['workspace:racy.txt']);
      // Control: had the first scan started well after the rewrite, the identical signature would
      // have been trusted and the change missed. The racy rule is what catches it.
      const trusting = scanWorkspace(workspace, { io: coarse, cache: { ...first.cache, scanStartedAtMs: first.cache.scanStartedAtMs + 10_000 } });
      expect(trusting.snapshot.get('workspace:racy.txt')!.hash).toBe(sha256('aaaa'));
      break;
    }
  });
});
