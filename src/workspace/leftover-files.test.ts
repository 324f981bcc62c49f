import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findLeftovers, parseLeftoverName, readLeftover, removeLeftover } from './leftover-files.js';
import { Workspace } from './workspace.js';

describe('leftover hidden files of killed writes', () => {
  let dir: string;
  let work: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-leftovers-'));
    work = join(dir, 'work');
    mkdirSync(work);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('tells the three forms apart from everything else', () => {
    expect(parseLeftoverName('.a.ts.0123456789ab.wp-tmp')).toEqual({ kind: 'temp', target: 'a.ts', pid: null });
    expect(parseLeftoverName('.a.ts.0123456789ab.wp-old')).toEqual({ kind: 'parked', target: 'a.ts', pid: null });
    expect(parseLeftoverName('.git.4242.wp-tmp')).toEqual({ kind: 'temp', target: '.git', pid: 4242 });
    for (const name of ['a.ts', '.a.ts.0123456789AB.wp-tmp', '.a.ts.0123.wp-old', 'a.ts.wp-tmp', '.a.ts.0123456789ab.wp-tmp.txt'])
      expect(parseLeftoverName(name)).toBeNull();
  });

  it('walks every directory, ignored ones too, but not .git, the store, or through links', () => {
    writeFileSync(join(work, '.gitignore'), 'build/\n');
    mkdirSync(join(work, 'build/deep'), { recursive: true });
    mkdirSync(join(work, '.git'));
    mkdirSync(join(work, 'store'));
    mkdirSync(join(dir, 'outside'));
    writeFileSync(join(work, '.a.txt.0123456789ab.wp-tmp'), 'temp\n');
    writeFileSync(join(work, 'build/deep/.out.js.0123456789ab.wp-old'), 'parked\n');
    writeFileSync(join(work, '.git/.index.0123456789ab.wp-tmp'), 'git\n');
    writeFileSync(join(work, 'store/.w.db.0123456789ab.wp-tmp'), 'store\n');
    writeFileSync(join(dir, 'outside/.x.0123456789ab.wp-tmp'), 'outside\n');
    symlinkSync(join(dir, 'outside'), join(work, 'linked'));
    const workspace = new Workspace({
      roots: [{ name: 'workspace', dir: work, kind: 'workspace' }],
      excludedDirs: [join(work, 'store')],
      protectedPaths: [join(work, 'store')],
    });
    const found = findLeftovers(workspace);
    expect(found.leftovers.map((item) => [item.key, item.kind, item.targetKey])).toEqual([
      ['workspace:.a.txt.0123456789ab.wp-tmp', 'temp', 'workspace:a.txt'],
      ['workspace:build/deep/.out.js.0123456789ab.wp-old', 'parked', 'workspace:build/deep/out.js'],
    ]);
  });

  it('completes a target name the writer cut, when one file there matches it alone', () => {
    const long = `${'n'.repeat(200)}.txt`;
    writeFileSync(join(work, long), 'x');
    writeFileSync(join(work, `.${long.slice(0, 180)}.0123456789ab.wp-tmp`), 'temp');
    const [leftover] = findLeftovers(new Workspace({ roots: [{ name: 'workspace', dir: work, kind: 'workspace' }] })).leftovers;
    expect(leftover!.targetKey).toBe(`workspace:${long}`);
  });

  it('reads and removes a leftover only while it is the file found', () => {
    const path = join(work, '.a.txt.0123456789ab.wp-tmp');
    writeFileSync(path, 'first\n');
    const workspace = new Workspace({ roots: [{ name: 'workspace', dir: work, kind: 'workspace' }] });
    const [leftover] = findLeftovers(workspace).leftovers;
    expect(readLeftover(leftover!)?.toString()).toBe('first\n');
    writeFileSync(path, 'changed since\n');
    expect(readLeftover(leftover!)).toBeNull();
    expect(removeLeftover(leftover!)).toBe('changed');
    const [again] = findLeftovers(workspace).leftovers;
    expect(removeLeftover(again!)).toBe('removed');
    expect(removeLeftover(again!)).toBe('gone');
  });
});
