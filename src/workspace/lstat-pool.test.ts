import { lstatSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lstatAll, STAT_FAILED, STAT_FIELDS, STAT_MISSING } from './lstat-pool.js';

function expectTable(table: Float64Array, paths: readonly string[]): void {
  expect(table.length).toBe(paths.length * STAT_FIELDS);
  paths.forEach((path, index) => {
    const row = Array.from(table.subarray(index * STAT_FIELDS, (index + 1) * STAT_FIELDS));
    let stats;
    try {
      stats = lstatSync(path, { throwIfNoEntry: false });
    } catch {
      expect(row[0]).toBe(STAT_FAILED); // ENOTDIR and the like: the scanner stats again to report why
      return;
    }
    if (stats === undefined) expect(row[0]).toBe(STAT_MISSING);
    else expect(row).toEqual([stats.mode, stats.size, stats.mtimeMs, stats.ctimeMs, stats.ino]);
  });
}

describe('lstatAll', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'wp-lstat-')));
  const paths: string[] = [];
  for (let index = 0; index < 700; index++) {
    writeFileSync(join(dir, `f${index}`), 'x'.repeat(index));
    paths.push(join(dir, `f${index}`));
  }
  mkdirSync(join(dir, 'sub'));
  symlinkSync('f1', join(dir, 'link'));
  paths.push(join(dir, 'sub'), join(dir, 'link'), join(dir, 'missing'), join(dir, 'f1', 'not-a-dir'));

  it('stats every path in order on this thread', () => {
    expectTable(lstatAll(paths, { parallelFrom: Number.POSITIVE_INFINITY }), paths);
  });

  it('gives the same table when worker threads share the work, for a repeated and for a new path list', () => {
    expectTable(lstatAll(paths, { parallelFrom: 0 }), paths);
    expectTable(lstatAll(paths, { parallelFrom: 0 }), paths); // the workers reuse the list they hold
    const reversed = [...paths].reverse();
    expectTable(lstatAll(reversed, { parallelFrom: 0 }), reversed); // a new list is sent again
    expect(lstatAll([], { parallelFrom: 0 })).toHaveLength(0);
  });
});
