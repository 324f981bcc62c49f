import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  utimesSync,
  watch,
  writeFileSync,
  type FSWatcher,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diffSnapshots, pathsThatMayDiffer, scanWorkspace, Workspace, type ScanResult } from '../../workspace/index.js';
import { ChangeTracker } from './change-tracker.js';

const SEED = Number(process.env.WAYPOINT_SEED ?? 1337);

/**
 * The tracker must never answer a scan with something stale: after every change (made by real
 * shell commands and fs calls), a scan through the tracker, handed the previous scan's cache, must
 * see exactly what a fresh scan with no cache and no tracker sees.
 */
describe.skipIf(process.platform !== 'linux')('the resident helper’s change tracker', () => {
  let dir: string;
  let workspace: Workspace;
  let tracker: ChangeTracker;
  let previous: ScanResult | null;
  let incrementalScans = 0;
  beforeEach(() => {
    incrementalScans = 0;
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'waypoint-tracker-')));
    workspace = new Workspace({ roots: [{ name: 'workspace', dir, kind: 'workspace' }], excludedDirs: [] });
    previous = null;
  });
  afterEach(() => {
    tracker?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const put = (path: string, content: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  const shell = (command: string) => expect(spawnSync('/bin/sh', ['-c', command], { cwd: dir }).status).toBe(0);
  const view = (scan: ScanResult) =>
    Object.fromEntries([...scan.snapshot].map(([path, entry]) => [path, `${entry.kind} ${entry.mode.toString(8)} ${entry.hash}`]));
  const skippedView = (scan: ScanResult) => scan.skipped.map((item) => `${item.reason} ${item.path} ${item.signature ?? ''}`).sort();
  const listingsView = (scan: ScanResult) =>
    Object.fromEntries(
      Object.entries(scan.cache.directories?.listings ?? {}).map(([key, listing]) => [
        key,
        [
          listing.mtimeMs,
          listing.ino,
          listing.rules,
          ...(['files', 'dirs', 'ignored', 'tracked', 'special', 'invalid', 'ignoreFiles'] as const).map((field) => [...(listing[field] ?? [])].sort()),
        ],
      ]),
    );
  const entriesView = (scan: ScanResult) =>
    Object.fromEntries(Object.entries(scan.cache.entries).map(([path, entry]) => [path, `${entry.hash} ${entry.size} ${entry.ino}`]));
  /**
   * A scan through the tracker (incremental when the tracker can tell what changed), checked
   * against a fresh full scan: the same files and hashes, the same skips, the same directory
   * listings and stat cache for the next scan, and the same diff from the previous scan whether it
   * is computed from the re-read paths alone or by comparing every path. Returns what it saw.
   */
  const scan = async () => {
    await tracker.settle();
    const before = previous;
    const beforeView = before === null ? null : view(before);
    const tracked = scanWorkspace(workspace, { cache: previous?.cache ?? null, io: tracker.io });
    // The scan derived from the previous one leaves that one as it was.
    if (before !== null) expect(view(before)).toEqual(beforeView);
    previous = tracked;
    const fresh = scanWorkspace(workspace, {});
    expect(view(tracked)).toEqual(view(fresh));
    expect(skippedView(tracked)).toEqual(skippedView(fresh));
    expect(tracked.complete).toBe(fresh.complete);
    expect(listingsView(tracked)).toEqual(listingsView(fresh));
    expect(entriesView(tracked)).toEqual(entriesView(fresh));
    if (before !== null) expect(diffSnapshots(before.snapshot, tracked.snapshot)).toEqual(diffSnapshots(new Map(before.snapshot), new Map(tracked.snapshot)));
    if (tracked.stats.incremental === true) incrementalScans++;
    return view(tracked);
  };
  /** A tree whose files and directories were last changed an hour ago, so the scans' caches trust them (only the tracker can tell). */
  const tree = (files: number) => {
    for (let index = 0; index < files; index++) put(`src/d${index % 4}/e${index % 3}/f${index}.txt`, `file ${index}\n`);
    const old = (Date.now() - 3_600_000) / 1000;
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) utimesSync(join(entry.parentPath, entry.name), old, old);
    utimesSync(dir, old, old);
  };

  it('answers an unchanged tree from memory, and sees a file written again with the same size', async () => {
    tracker = new ChangeTracker();
    tree(24);
    await scan();
    const { watched, stats } = tracker.counts();
    expect(watched).toBeGreaterThan(10);
    expect(stats).toBeGreaterThan(24);
    writeFileSync(join(dir, 'src/d1/e1/f13.txt'), 'FILE 13\n');
    const unchanged = previous!;
    expect((await scan())['workspace:src/d1/e1/f13.txt']).toContain('file 644');
    // Its directory is read again, but of its files only the one the journal names (src/d1/e1/f1.txt
    // keeps its entry as it was, unread).
    expect([...(pathsThatMayDiffer(unchanged.snapshot, previous!.snapshot) ?? ['not derived'])]).toEqual(['workspace:src/d1/e1/f13.txt']);
    expect(previous!.snapshot.get('workspace:src/d1/e1/f1.txt')).toBe(unchanged.snapshot.get('workspace:src/d1/e1/f1.txt'));
    expect(tracker.counts().stats).toBeGreaterThan(24);
    // Read again: the directory that changed (and the racy file's), not the 24 files.
    expect(previous!.stats).toMatchObject({ incremental: true });
    expect(previous!.stats.hashed).toBe(1);
    // Nothing changed since, but the file's entry is racy (written within the racy window of the
    // last scan's start): read again, as a full scan handed the same cache does.
    const racyCache = previous!.cache;
    await scan();
    expect(previous!.stats).toMatchObject({ incremental: true, hashed: 1 });
    expect(scanWorkspace(workspace, { cache: racyCache }).stats.hashed).toBe(1);
  });

  it('a file deleted and created again is reported each time, and earlier snapshots stay as they were', async () => {
    tracker = new ChangeTracker();
    tree(24);
    const path = 'workspace:src/d2/e2/f2.txt';
    const first = await scan();
    const kept = previous!;
    rmSync(join(dir, 'src/d2/e2/f2.txt'));
    expect((await scan())[path]).toBeUndefined();
    const deleted = previous!;
    expect(diffSnapshots(kept.snapshot, deleted.snapshot).deleted.map((item) => item.path)).toEqual([path]);
    put('src/d2/e2/f2.txt', 'file 2\n');
    expect((await scan())[path]).toBe(first[path]);
    expect(diffSnapshots(deleted.snapshot, previous!.snapshot).created.map((item) => item.path)).toEqual([path]);
    put('src/d2/e2/f2.txt', 'file 2 again\n');
    expect((await scan())[path]).not.toBe(first[path]);
    expect(view(kept)).toEqual(first);
    expect(kept.snapshot.get(path)).toBeDefined();
    expect(deleted.snapshot.has(path)).toBe(false);
    expect(incrementalScans).toBe(3);
  });

  it('a deep new directory tree created by one command is read in full, then watched', async () => {
    tracker = new ChangeTracker();
    tree(8);
    await scan();
    shell('mkdir -p new/a/b/c/d && echo one > new/a/b/c/d/deep.txt && echo two > new/a/top.txt && cp -r src new/a/b/copy');
    const seen = await scan();
    expect(Object.keys(seen).filter((path) => path.startsWith('workspace:new/'))).toHaveLength(10);
    // Now watched: a later change deep inside is seen too.
    shell('echo three > new/a/b/c/d/deep.txt && mkdir new/a/b/c/d/e && echo four > new/a/b/c/d/e/f.txt');
    await scan();
    expect(tracker.counts().resets).toBe(0);
  });

  it('a renamed directory: its old watchers are dropped, changes under the new name are seen', async () => {
    tracker = new ChangeTracker();
    tree(12);
    await scan();
    renameSync(join(dir, 'src'), join(dir, 'lib'));
    let seen = await scan();
    expect(Object.keys(seen).some((path) => path.startsWith('workspace:src/'))).toBe(false);
    // The inode the old watchers watched is lib/ now: a change there must be seen under lib/.
    writeFileSync(join(dir, 'lib/d0/e0/f0.txt'), 'changed\n');
    put('lib/d2/new.txt', 'new\n');
    seen = await scan();
    expect(seen['workspace:lib/d2/new.txt']).toBeDefined();
    // Moved away and a new directory made under the old name in one command: nothing of the moved one may answer for it.
    shell('mv lib old && mkdir -p lib/d0/e0 && echo new > lib/d0/e0/other.txt && echo again > old/d0/e0/f0.txt');
    seen = await scan();
    expect(Object.keys(seen).filter((path) => path.startsWith('workspace:lib/'))).toEqual(['workspace:lib/d0/e0/other.txt']);
    shell('rm -r lib && mv old lib');
    await scan();
    // A directory moved back and forth, and one replaced by a file of the same name.
    shell('mv lib/d1 d1 && echo moved > d1/e1/f1.txt && mv d1 lib/d1 && rm -r lib/d3 && echo file > lib/d3');
    await scan();
    shell('echo again > lib/d1/e1/f1.txt && chmod 755 lib/d3');
    await scan();
    expect(incrementalScans).toBeGreaterThan(3);
  });

  it('a file with another hard link is never answered from memory (a write through the other name raises no event here)', async () => {
    tracker = new ChangeTracker();
    tree(4);
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'waypoint-tracker-outside-')));
    try {
      linkSync(join(dir, 'src/d0/e0/f0.txt'), join(outside, 'other-name.txt'));
      await scan();
      writeFileSync(join(outside, 'other-name.txt'), 'FILE 0\n');
      await scan();
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a change made while nobody watched: a new tracker starts from a full scan', async () => {
    tracker = new ChangeTracker();
    tree(8);
    await scan();
    tracker.close();
    writeFileSync(join(dir, 'src/d0/e0/f0.txt'), 'FILE 0\n');
    rmSync(join(dir, 'src/d1'), { recursive: true });
    tracker = new ChangeTracker();
    const seen = await scan();
    expect(seen['workspace:src/d0/e0/f0.txt']).toBeDefined();
  });

  it('as many events as could overflow the kernel queue, or a watcher error, make the next scan a full one', async () => {
    tracker = new ChangeTracker({ overflowAt: 20 });
    tree(30);
    await scan();
    writeFileSync(join(dir, 'src/d0/e0/f0.txt'), 'one change\n');
    await scan();
    expect(previous!.stats.incremental).toBe(true);
    shell('for f in $(find src -name "*.txt"); do echo x >> $f; done');
    await scan();
    expect(previous!.stats.incremental).toBeUndefined();
    expect(tracker.counts()).toMatchObject({ resets: 1, lastReset: expect.stringContaining('overflow') });
    expect(tracker.counts().stats).toBeGreaterThan(30);
    // A watcher that fails: everything is dropped, and the next scan still sees every change.
    const watchers: FSWatcher[] = [];
    tracker.close();
    tracker = new ChangeTracker({
      watch: (path, listener) => {
        const watcher = watch(path, { persistent: false }, listener);
        watchers.push(watcher);
        return watcher;
      },
    });
    await scan();
    watchers[3]!.emit('error', new Error('EIO'));
    expect(tracker.counts()).toMatchObject({ resets: 1, watched: 0, stats: 0 });
    writeFileSync(join(dir, 'src/d2/e2/f2.txt'), 'after the error\n');
    await scan();
    expect(previous!.stats.incremental).toBeUndefined();
  });

  it('a directory it cannot watch is read in full by every scan', async () => {
    tree(8);
    const blind = join(dir, 'src/d1');
    tracker = new ChangeTracker({
      watch: (path, listener) => {
        if (path === blind) throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
        return watch(path, { persistent: false }, listener);
      },
    });
    await scan();
    // Nothing of it is kept (its listing, its own stat), so entries added there are seen.
    put('src/d1/fresh.txt', 'fresh\n');
    expect((await scan())['workspace:src/d1/fresh.txt']).toBeDefined();
    expect(tracker.counts().listings).toBe(tracker.counts().watched);
    rmSync(join(blind, 'e1'), { recursive: true });
    writeFileSync(join(blind, 'fresh.txt'), 'FRESH\n');
    await scan();
  });

  it(`random changes (seed ${SEED}, WAYPOINT_SEED to change) never leave a scan stale`, async () => {
    let seed = SEED;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    tracker = new ChangeTracker();
    tree(20);
    await scan();
    const files = () => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    const dirs = () => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isDirectory());
    for (let step = 0; step < 40; step++) {
      if (files().length < 3) put(`refill${step}/r.txt`, `${step}`);
      const someFile = files()[random(Math.max(1, files().length))];
      const someDir = dirs()[random(Math.max(1, dirs().length))];
      const file = join(someFile!.parentPath, someFile!.name);
      const folder = someDir ? join(someDir.parentPath, someDir.name) : dir;
      switch (random(7)) {
        case 0:
          writeFileSync(file, `step ${step}\n`);
          break;
        case 1:
          rmSync(file, { force: true });
          break;
        case 2:
          mkdirSync(join(folder, `n${step}/m/k`), { recursive: true });
          writeFileSync(join(folder, `n${step}/m/k/g.txt`), `${step}`);
          break;
        case 3:
          if (folder !== dir) renameSync(folder, join(dir, `moved${step}`));
          break;
        case 4:
          chmodSync(file, random(2) ? 0o755 : 0o644);
          break;
        case 5:
          renameSync(file, join(folder, `renamed${step}.txt`));
          break;
        default:
          if (folder !== dir) rmSync(folder, { recursive: true });
      }
      // Sometimes two changes before one scan.
      if (random(3) === 0) continue;
      await scan();
    }
    await scan();
    expect(incrementalScans).toBeGreaterThan(10);
  });

  it('ignore files edited, added and removed at any depth re-decide what they affect', async () => {
    tracker = new ChangeTracker();
    tree(24);
    put('.gitignore', 'build/\n');
    put('build/out.js', 'built\n');
    put('src/d1/.gitignore', '*.log\n');
    put('src/d1/e0/trace.log', 'log\n');
    put('src/d2/e1/trace.log', 'log\n');
    await scan();
    put('src/d1/.gitignore', '*.txt\n');
    let seen = await scan();
    expect(seen['workspace:src/d1/e0/trace.log']).toBeDefined();
    expect(Object.keys(seen).some((path) => path.startsWith('workspace:src/d1/') && path.endsWith('.txt'))).toBe(false);
    put('src/d2/e1/.waypointignore', 'trace.log\n');
    seen = await scan();
    expect(seen['workspace:src/d2/e1/trace.log']).toBeUndefined();
    rmSync(join(dir, 'src/d1/.gitignore'));
    put('.gitignore', '');
    seen = await scan();
    expect(seen['workspace:build/out.js']).toBeDefined();
    put('src/d3/e2/.gitignore', '*\n');
    await scan();
    shell('echo more >> src/d3/e2/f11.txt && mkdir -p src/d3/e2/sub && echo x > src/d3/e2/sub/x.txt');
    await scan();
    expect(incrementalScans).toBe(5);
  });

  it('git’s index and rules above the root: a path added to the index is kept although ignored', async () => {
    tracker = new ChangeTracker();
    tree(12);
    put('.gitignore', '*.log\n');
    put('src/d0/e0/keep.log', 'kept\n');
    shell('git init -q && git add .gitignore');
    await scan();
    shell('git add -f src/d0/e0/keep.log');
    expect((await scan())['workspace:src/d0/e0/keep.log']).toBeDefined();
    shell('git rm -q --cached src/d0/e0/keep.log && echo "src/d1/" >> .git/info/exclude');
    const seen = await scan();
    expect(seen['workspace:src/d0/e0/keep.log']).toBeUndefined();
    expect(Object.keys(seen).some((path) => path.startsWith('workspace:src/d1/'))).toBe(false);
    writeFileSync(join(dir, 'src/d2/e2/f2.txt'), 'changed\n');
    await scan();
    expect(previous!.stats.incremental).toBe(true);
  });

  it('names that are not UTF-8, symlinks retargeted, special files and unreadable files', async () => {
    tracker = new ChangeTracker();
    tree(8);
    await scan();
    shell(`printf one > "src/d0/$(printf 'bad\\377name')" && ln -s d0 src/link && ln -s missing src/d1/dangling && mkfifo src/d2/pipe`);
    await scan();
    shell(`printf two > "src/d0/$(printf 'bad\\377name')" && ln -sfn d1 src/link && rm src/d2/pipe`);
    await scan();
    writeFileSync(join(dir, 'src/d3/secret.txt'), 'secret\n');
    chmodSync(join(dir, 'src/d3/secret.txt'), 0o000);
    await scan();
    chmodSync(join(dir, 'src/d3/secret.txt'), 0o644);
    await scan();
    expect(incrementalScans).toBe(4);
  });

  it('a file linked twice inside the tree, written through either name', async () => {
    tracker = new ChangeTracker();
    tree(8);
    linkSync(join(dir, 'src/d0/e0/f0.txt'), join(dir, 'src/d1/twin.txt'));
    await scan();
    writeFileSync(join(dir, 'src/d1/twin.txt'), 'through the twin\n');
    expect((await scan())['workspace:src/d0/e0/f0.txt']).toEqual((await scan())['workspace:src/d1/twin.txt']);
    expect(incrementalScans).toBe(2);
  });
});
