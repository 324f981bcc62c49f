import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readIndexEntries } from './git-index-reader.js';

let repo: string;
const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
/** What git itself lists: `ls-files --stage`, each path once. */
const listedByGit = () => {
  const seen = new Map<string, string>();
  for (const line of git('ls-files', '-z', '--stage').split('\0').filter(Boolean)) {
    const path = line.slice(line.indexOf('\t') + 1);
    if (!seen.has(path)) seen.set(path, line.slice(0, line.indexOf(' ')));
  }
  return [...seen].map(([path, mode]) => ({ mode, path }));
};
const index = () => join(repo, '.git', 'index');

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'waypoint-index-'));
  git('init', '--quiet');
  mkdirSync(join(repo, 'dir', 'deeper'), { recursive: true });
  // Names of every padding length, a long one, non-ASCII, an executable and a link.
  for (let length = 1; length <= 12; length++) writeFileSync(join(repo, 'dir', 'x'.repeat(length)), `${length}\n`);
  writeFileSync(join(repo, 'dir', 'deeper', `${'long-name-'.repeat(20)}.txt`), 'long\n');
  writeFileSync(join(repo, 'dir', 'ünïcödé.txt'), 'u\n');
  writeFileSync(join(repo, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
  symlinkSync('run.sh', join(repo, 'link'));
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'base');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe('reading the tracked paths from the index file', () => {
  it('lists what git ls-files --stage lists, in versions 2, 3 (extended flags) and 4 (compressed names)', () => {
    expect(readIndexEntries(index())).toEqual(listedByGit());
    writeFileSync(join(repo, 'intent.txt'), 'intent to add\n');
    git('add', '--intent-to-add', 'intent.txt');
    expect(git('ls-files', '--debug', 'intent.txt')).toContain('flags: 20004000');
    expect(readIndexEntries(index())).toEqual(listedByGit());
    git('update-index', '--index-version', '4');
    expect(readFileSync(index()).readUInt32BE(4)).toBe(4);
    expect(readIndexEntries(index())).toEqual(listedByGit());
    expect(readIndexEntries(index())).toContainEqual({ mode: '120000', path: 'link' });
    expect(readIndexEntries(index())).toContainEqual({ mode: '100755', path: 'run.sh' });
  });

  it('lists a conflicted path once', () => {
    const blob = git('hash-object', '-w', 'run.sh').trim();
    execFileSync('git', ['-C', repo, 'update-index', '--index-info'], {
      input: `0 ${'0'.repeat(40)}\tdir/x\n100644 ${blob} 1\tdir/x\n100644 ${blob} 2\tdir/x\n100644 ${blob} 3\tdir/x\n`,
    });
    expect(git('ls-files', '--stage', 'dir/x').split('\n').filter(Boolean)).toHaveLength(3);
    expect(readIndexEntries(index())).toEqual(listedByGit());
  });

  it('gives up (null) where the file does not hold every entry plainly: split index, skip-worktree, a bad checksum, no index', () => {
    git('update-index', '--skip-worktree', 'run.sh');
    expect(readIndexEntries(index())).toBeNull();
    git('update-index', '--no-skip-worktree', 'run.sh');
    expect(readIndexEntries(index())).toEqual(listedByGit());
    git('update-index', '--split-index');
    expect(readIndexEntries(index())).toBeNull();
    git('update-index', '--no-split-index');
    const data = readFileSync(index());
    data[20] = data[20]! ^ 1;
    writeFileSync(index(), data);
    expect(readIndexEntries(index())).toBeNull();
    expect(readIndexEntries(join(repo, 'missing'))).toBeNull();
  });
});
