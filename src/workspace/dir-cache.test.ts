import { mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffSnapshots } from './diff-snapshots.js';
import { PARALLEL_MIN_PATHS } from './lstat-pool.js';
import { nodeScanIo } from './scan-io.js';
import { scanWorkspace } from './scanner.js';
import { isStatCacheState, type StatCacheState } from './stat-cache.js';
import { Workspace } from './workspace.js';

// Directory listings are reused only when the directory's mtime is older than the previous scan's
// start less the racy window: backdate whole trees so the tests exercise reuse.
const HOUR_AGO = (Date.now() - 3_600_000) / 1000;

function setup(files: Record<string, string>) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'wp-dircache-')));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  backdate(dir);
  const workspace = new Workspace({ roots: [{ name: 'workspace', dir, kind: 'workspace' }], excludedDirs: [join(dir, '.waypoint')] });
  return { dir, workspace };
}

/** Files and directories alike, each directory after its entries. */
function backdate(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) backdate(path);
    else utimesSync(path, HOUR_AGO, HOUR_AGO);
  }
  utimesSync(dir, HOUR_AGO, HOUR_AGO);
}

const paths = (result: ReturnType<typeof scanWorkspace>) => [...result.snapshot.keys()].sort();

describe('scanWorkspace directory cache', () => {
  it('reuses every unchanged listing, still lstat-ing each file, and reports the same ignored paths', () => {
    const { dir, workspace } = setup({ '.gitignore': 'build/\n*.log\n', 'a.txt': 'a', 'x.log': 'x', 'build/out.js': 'o', 'src/deep/b.ts': 'b' });
    const first = scanWorkspace(workspace);
    expect(first.stats.directoriesRead).toBe(3); // root, src, src/deep; build is ignored
    let lstats = 0;
    const io = {
      lstat: (path: string) => {
        lstats++;
        return nodeScanIo.lstat(path);
      },
    };
    const again = scanWorkspace(workspace, { cache: first.cache, io });
    expect(again.stats).toMatchObject({ directoriesRead: 0, directories: 3, cacheHits: 3, hashed: 0 });
    expect(lstats).toBe(3 + 3); // three directories, three files
    expect(paths(again)).toEqual(paths(first));
    expect(again.skipped.map((skip) => skip.path).sort()).toEqual(['workspace:build', 'workspace:x.log']);

    writeFileSync(join(dir, 'src/deep/b.ts'), 'changed in place'); // the directory does not change
    const edited = scanWorkspace(workspace, { cache: again.cache });
    expect(edited.stats).toMatchObject({ directoriesRead: 0, hashed: 1 });
    expect(diffSnapshots(again.snapshot, edited.snapshot).modified.map((change) => change.path)).toEqual(['workspace:src/deep/b.ts']);
  });

  it('finds a file added to a cached directory, even when the directory mtime is put back (ctime differs)', () => {
    const { dir, workspace } = setup({ 'src/a.ts': 'a' });
    const first = scanWorkspace(workspace);
    writeFileSync(join(dir, 'src/new.ts'), 'new');
    const added = scanWorkspace(workspace, { cache: first.cache });
    expect(paths(added)).toEqual(['workspace:src/a.ts', 'workspace:src/new.ts']);
    expect(added.stats.directoriesRead).toBe(1);

    utimesSync(join(dir, 'src'), HOUR_AGO, HOUR_AGO); // the listing is trusted by mtime from here on
    const settled = scanWorkspace(workspace, { cache: added.cache });
    expect(scanWorkspace(workspace, { cache: settled.cache }).stats.directoriesRead).toBe(0);
    writeFileSync(join(dir, 'src/sneaky.ts'), 'sneaky');
    utimesSync(join(dir, 'src'), HOUR_AGO, HOUR_AGO); // same mtime as cached; only ctime moved
    const restored = scanWorkspace(workspace, { cache: settled.cache });
    expect(paths(restored)).toEqual(['workspace:src/a.ts', 'workspace:src/new.ts', 'workspace:src/sneaky.ts']);
  });

  it('sees deletions and renames inside cached directories', () => {
    const { dir, workspace } = setup({ 'src/a.ts': 'a', 'src/b.ts': 'b', 'lib/c.ts': 'c' });
    const first = scanWorkspace(workspace);
    rmSync(join(dir, 'src/a.ts'));
    renameSync(join(dir, 'lib/c.ts'), join(dir, 'src/c.ts'));
    const after = scanWorkspace(workspace, { cache: first.cache });
    expect(paths(after)).toEqual(['workspace:src/b.ts', 'workspace:src/c.ts']);
  });

  it('applies an ignore file edited in place to unchanged directories below it', () => {
    const { dir, workspace } = setup({ '.gitignore': 'build/\n', 'src/deep/keep.ts': 'k', 'src/deep/scratch.tmp': 't', 'build/out.js': 'o' });
    const first = scanWorkspace(workspace);
    expect(paths(first)).toContain('workspace:src/deep/scratch.tmp');

    writeFileSync(join(dir, '.gitignore'), '*.tmp\n'); // directory mtimes unchanged: only the rules changed
    utimesSync(join(dir, '.gitignore'), HOUR_AGO, HOUR_AGO);
    const second = scanWorkspace(workspace, { cache: first.cache });
    expect(paths(second)).toEqual(['workspace:.gitignore', 'workspace:build/out.js', 'workspace:src/deep/keep.ts']);
    expect(second.skipped).toEqual([{ path: 'workspace:src/deep/scratch.tmp', reason: 'ignored' }]);
  });

  it('applies a new nested .gitignore and stops applying a removed one', () => {
    const { dir, workspace } = setup({ 'src/lib/gen.ts': 'g', 'src/lib/hand.ts': 'h', 'src/other.ts': 'o' });
    const first = scanWorkspace(workspace);
    writeFileSync(join(dir, 'src/.gitignore'), 'gen.ts\n');
    const second = scanWorkspace(workspace, { cache: first.cache });
    expect(paths(second)).toEqual(['workspace:src/.gitignore', 'workspace:src/lib/hand.ts', 'workspace:src/other.ts']);
    rmSync(join(dir, 'src/.gitignore'));
    const third = scanWorkspace(workspace, { cache: second.cache });
    expect(paths(third)).toEqual(['workspace:src/lib/gen.ts', 'workspace:src/lib/hand.ts', 'workspace:src/other.ts']);
  });

  it('handles a directory replaced by a file and a file replaced by a directory', () => {
    const { dir, workspace } = setup({ 'thing/inner.ts': 'i', other: 'o' });
    const first = scanWorkspace(workspace);
    rmSync(join(dir, 'thing'), { recursive: true });
    writeFileSync(join(dir, 'thing'), 'now a file');
    rmSync(join(dir, 'other'));
    mkdirSync(join(dir, 'other'));
    writeFileSync(join(dir, 'other/inside.ts'), 'x');
    const second = scanWorkspace(workspace, { cache: first.cache });
    expect(paths(second)).toEqual(['workspace:other/inside.ts', 'workspace:thing']);
    expect(second.snapshot.get('workspace:thing')).toMatchObject({ kind: 'file', size: 10 });
  });

  it('re-reads a directory changed within the timestamp tick of the previous scan (racy listing)', () => {
    // Simulate 1-second timestamps: a file added in the same second as the previous scan leaves the
    // directory's (truncated) mtime and ctime unchanged. Only the racy rule can catch it.
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
      const { dir, workspace } = setup({ 'a.ts': 'a' });
      writeFileSync(join(dir, 'first.ts'), '1');
      const startSecond = Math.floor(Date.now() / 1000);
      const first = scanWorkspace(workspace, { io: coarse });
      writeFileSync(join(dir, 'second.ts'), '2');
      const second = scanWorkspace(workspace, { io: coarse, cache: first.cache });
      if (Math.floor(Date.now() / 1000) !== startSecond && attempt < 5) continue; // crossed a second: retry
      expect(coarse.lstat(dir).mtimeMs).toBe(first.cache.directories!.listings['workspace:']!.mtimeMs);
      expect(paths(second)).toEqual(['workspace:a.ts', 'workspace:first.ts', 'workspace:second.ts']);
      // Control: trusting the listing (a scan that started much later) would have missed second.ts.
      const trusting = scanWorkspace(workspace, { io: coarse, cache: { ...first.cache, scanStartedAtMs: first.cache.scanStartedAtMs + 10_000 } });
      expect(paths(trusting)).toEqual(['workspace:a.ts', 'workspace:first.ts']);
      break;
    }
  });

  it('reuses listings from a JSON round trip, but not under different exclusions', () => {
    const { dir, workspace } = setup({ 'a.ts': 'a', 'vendor/v.ts': 'v' });
    const first = scanWorkspace(workspace);
    const revived = JSON.parse(JSON.stringify(first.cache)) as StatCacheState;
    expect(isStatCacheState(revived)).toBe(true);
    expect(scanWorkspace(workspace, { cache: revived }).stats).toMatchObject({ directoriesRead: 0, hashed: 0 });

    const narrower = new Workspace({ roots: [{ name: 'workspace', dir, kind: 'workspace' }], excludedDirs: [join(dir, 'vendor')] });
    const excluded = scanWorkspace(narrower, { cache: revived });
    expect(paths(excluded)).toEqual(['workspace:a.ts']);
    const wider = scanWorkspace(workspace, { cache: excluded.cache });
    expect(paths(wider)).toEqual(['workspace:a.ts', 'workspace:vendor/v.ts']);
  });

  it('refuses states with a malformed listing or entry as a whole', () => {
    const { workspace } = setup({ 'a.ts': 'a', 'src/b.ts': 'b' });
    const state = JSON.parse(JSON.stringify(scanWorkspace(workspace).cache)) as StatCacheState;
    const listings = state.directories!.listings;
    const broken: unknown[] = [
      { ...state, directories: { ...state.directories, listings: { ...listings, 'workspace:': { ...listings['workspace:'], files: ['../escape'] } } } },
      { ...state, directories: { ...state.directories, listings: { ...listings, 'workspace:src': { ...listings['workspace:src'], dirs: undefined } } } },
      { ...state, directories: { listings } },
      { ...state, entries: { ...state.entries, 'workspace:a.ts': { ...state.entries['workspace:a.ts'], hash: 42 } } },
    ];
    for (const value of broken) {
      expect(isStatCacheState(value)).toBe(false);
      expect(scanWorkspace(workspace, { cache: value as StatCacheState }).stats).toMatchObject({ hashed: 2, directoriesRead: 2 });
    }
  });

  it('gives the same results when a large tree is stat-ed by worker threads', () => {
    const count = PARALLEL_MIN_PATHS + 50;
    const files: Record<string, string> = {};
    for (let index = 0; index < count; index++) files[`d${index % 13}/f${index}.txt`] = `content ${index}`;
    const { dir, workspace } = setup(files);
    const first = scanWorkspace(workspace);
    expect(first.stats).toMatchObject({ files: count, hashed: count });
    const unchanged = scanWorkspace(workspace, { cache: first.cache });
    expect(unchanged.stats).toMatchObject({ cacheHits: count, hashed: 0, directoriesRead: 0 });
    expect(unchanged.cache.entries).toBe(first.cache.entries); // nothing changed: the record is shared
    writeFileSync(join(dir, 'd3/f3.txt'), 'edited');
    rmSync(join(dir, 'd4/f4.txt'));
    writeFileSync(join(dir, 'd5/added.txt'), 'added');
    const changed = scanWorkspace(workspace, { cache: unchanged.cache });
    const diff = diffSnapshots(unchanged.snapshot, changed.snapshot);
    expect(diff.modified.map((change) => change.path)).toEqual(['workspace:d3/f3.txt']);
    expect(diff.deleted.map((change) => change.path)).toEqual(['workspace:d4/f4.txt']);
    expect(diff.created.map((change) => change.path)).toEqual(['workspace:d5/added.txt']);
    expect(changed.stats).toMatchObject({ hashed: 2, directoriesRead: 2 });
  });
});
