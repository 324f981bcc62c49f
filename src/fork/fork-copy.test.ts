import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CopyJob, writeJobs } from './fork-copy.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'waypoint-fork-copy-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A source tree with every kind of entry a fork meets, and the jobs that copy it. */
function fixture(): CopyJob[] {
  const source = join(dir, 'source');
  mkdirSync(join(source, 'a', 'b'), { recursive: true });
  writeFileSync(join(source, 'a', 'plain.txt'), 'plain\n');
  writeFileSync(join(source, 'a', 'b', 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
  writeFileSync(join(source, 'a', 'b', 'private'), 'secret\n');
  chmodSync(join(source, 'a', 'b', 'private'), 0o600);
  symlinkSync(Buffer.from([0x74, 0xff, 0x2e, 0x74, 0x78, 0x74]), join(source, 'a', 'odd-link'));
  execFileSync('mkfifo', [join(source, 'pipe')]);
  mkdirSync(join(source, 'now-a-directory'));
  writeFileSync(join(source, 'sparse'), 'head');
  truncateSync(join(source, 'sparse'), 64 * 1024 * 1024);
  const copy = (path: string, group = -1): CopyJob => ({ kind: 'copy', path, source: join(source, path), group });
  return [
    copy('a/plain.txt'),
    copy('a/b/run.sh'),
    copy('a/b/private', 0),
    copy('a/odd-link'),
    copy('pipe'),
    copy('now-a-directory'),
    copy('gone/file'),
    copy('sparse', 1),
    { kind: 'content', path: 'a/restored.txt', mode: 0o640, content: Buffer.from('restored\n'), group: -1 },
    { kind: 'symlink', path: 'a/link', target: '../elsewhere', group: -1 },
  ];
}

describe('writing a fork tree on worker threads', () => {
  it('writes the same entries, counts and skips as the main-thread pool, and reports progress for every job', async () => {
    const jobs = fixture();
    const outcomes = [];
    for (const [name, workerThreshold] of [
      ['pool', Number.MAX_SAFE_INTEGER],
      ['workers', 0],
    ] as const) {
      const target = join(dir, name);
      mkdirSync(target);
      let done = 0;
      const outcome = await writeJobs(target, jobs, () => done++, { workerThreshold });
      expect(done).toBe(jobs.length);
      expect(readFileSync(join(target, 'a', 'plain.txt'), 'utf8')).toBe('plain\n');
      expect(statSync(join(target, 'a', 'b', 'run.sh')).mode & 0o7777).toBe(0o755);
      expect(statSync(join(target, 'a', 'b', 'private')).mode & 0o7777).toBe(0o600);
      expect(readlinkSync(join(target, 'a', 'odd-link'), { encoding: 'buffer' })).toEqual(Buffer.from([0x74, 0xff, 0x2e, 0x74, 0x78, 0x74]));
      expect(statSync(join(target, 'a', 'restored.txt')).mode & 0o7777).toBe(0o640);
      expect(readlinkSync(join(target, 'a', 'link'))).toBe('../elsewhere');
      const sparse = lstatSync(join(target, 'sparse'));
      expect(sparse.size).toBe(64 * 1024 * 1024);
      expect(sparse.blocks * 512).toBeLessThan(sparse.size);
      outcomes.push({
        files: [...outcome.files].sort(),
        bytes: [...outcome.bytes].sort(),
        skipped: [...outcome.skipped].sort((a, b) => (a.path < b.path ? -1 : 1)),
      });
    }
    expect(outcomes[1]).toEqual(outcomes[0]);
    expect(outcomes[0]!.skipped).toEqual([
      { path: 'gone/file', group: -1, reason: 'missing' },
      { path: 'now-a-directory', group: -1, reason: 'not_regular', detail: 'a directory now' },
      { path: 'pipe', group: -1, reason: 'not_regular' },
    ]);
  });

  it('stops every worker and rejects with the system error when a destination already exists, nothing overwritten', async () => {
    const jobs = fixture();
    const target = join(dir, 'target');
    mkdirSync(join(target, 'a'), { recursive: true });
    writeFileSync(join(target, 'a', 'plain.txt'), 'already here\n');
    await expect(writeJobs(target, jobs, undefined, { workerThreshold: 0 })).rejects.toMatchObject({ code: 'EEXIST' });
    expect(readFileSync(join(target, 'a', 'plain.txt'), 'utf8')).toBe('already here\n');
  });
});
