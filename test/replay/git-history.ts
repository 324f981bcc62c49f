import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** What a generated history contains beyond text edits, renames, deletes, binaries and a mode change. */
export interface HistoryOptions {
  seed: number;
  /** Commits after the first one (each replayed as one turn). */
  commits: number;
  /** Text files in the first commit. */
  files: number;
  /** Lines of the lock-file-like file (`package-lock.json`) that most commits change a little. */
  lockLines?: number;
  /** Symlinks created, retargeted, replaced by a file and back, and deleted. */
  symlinks?: boolean;
  /** Files under an ignored path that git tracks because they were added with `git add -f`. */
  forceAdded?: boolean;
  /** A nested `.gitignore` that un-ignores (`!/node_modules/`) a directory the root's rules ignore. */
  nestedNegation?: boolean;
}

/** One generated repository: its directory, commit ids oldest first, and ignored files never committed. */
export interface GitHistory {
  repo: string;
  commits: string[];
  /** Ignored, untracked files in the first commit's work tree (a replay must leave them alone). */
  untracked: Record<string, string>;
}

/** A small deterministic PRNG (mulberry32): the same seed builds the same history. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

export function git(cwd: string, args: string[], input?: Buffer | string): Buffer {
  return execFileSync('git', args, { cwd, input, maxBuffer: 256 * 1024 * 1024, stdio: ['pipe', 'pipe', 'pipe'] });
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'render', 'parse', 'value', 'index', 'store', 'queue', 'token', 'frame', 'cache', 'route'];

/**
 * Builds a git history in `dir/repo` with git itself: a first commit of text files in nested
 * directories, a large lock-file-like file, binaries, an executable script and nested
 * `.gitignore` files, then `options.commits` commits that edit, add, delete and rename files,
 * change the lock file by a few lines, rewrite binaries, flip the executable bit and (by option)
 * change symlinks, force-added ignored files and a nested un-ignoring `.gitignore`.
 */
export function buildGitHistory(dir: string, options: HistoryOptions): GitHistory {
  const next = random(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const repo = join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  git(repo, ['init', '-q', '-b', 'main']);
  for (const [key, value] of [
    ['user.name', 'Replay'],
    ['user.email', 'replay@example.invalid'],
    ['commit.gpgsign', 'false'],
    ['core.autocrlf', 'false'],
  ]) {
    git(repo, ['config', key!, value!]);
  }
  const at = (path: string) => join(repo, path);
  const write = (path: string, content: Buffer | string) => {
    mkdirSync(dirname(at(path)), { recursive: true });
    writeFileSync(at(path), content);
  };
  const line = (index: number) => `${pick(WORDS)}(${index}, "${pick(WORDS)}-${Math.floor(next() * 1e6)}");`;
  const textFile = (lines: number) => `${Array.from({ length: lines }, (_, index) => line(index)).join('\n')}\n`;
  const binary = (size: number) => Buffer.from(Array.from({ length: size }, (_, index) => (index % 7 === 0 ? 0 : Math.floor(next() * 256))));
  const lockEntry = (index: number, version: number) =>
    `    "node_modules/pkg-${index}": { "version": "1.${version}.${index % 10}", "integrity": "sha512-${(index * 7919 + version).toString(36).padStart(12, 'x')}" },`;
  const lockLines = options.lockLines ?? 1500;
  const lockVersions = Array.from({ length: lockLines }, () => 0);
  const lockFile = () => `{\n  "lockfileVersion": 3,\n  "packages": {\n${lockVersions.map((version, index) => lockEntry(index, version)).join('\n')}\n  }\n}\n`;

  const texts: string[] = [];
  const dirs = ['src', 'src/core', 'src/core/deep', 'lib', 'docs', 'pkg', 'pkg/inner'];
  for (let index = 0; index < options.files; index++) {
    const path = `${dirs[index % dirs.length]}/file-${index}.${index % 3 === 0 ? 'md' : 'ts'}`;
    write(path, textFile(5 + Math.floor(next() * 60)));
    texts.push(path);
  }
  write('package-lock.json', lockFile());
  const binaries = ['assets/logo.png', 'assets/font.woff'];
  for (const path of binaries) write(path, binary(2000 + Math.floor(next() * 6000)));
  write('scripts/build.sh', '#!/bin/sh\necho build\n');
  chmodSync(at('scripts/build.sh'), 0o755);
  write('.gitignore', `*.log\nbuild/\n${options.nestedNegation ? 'node_modules/\n' : ''}`);
  write('pkg/.gitignore', '*.tmp\n/local/\n');
  // Ignored and never committed: present in the work tree, never in a tree.
  const untracked: Record<string, string> = { 'debug.log': 'a log line\n', 'pkg/cache.tmp': 'scratch\n', 'build/out.js': 'built\n' };
  for (const [path, content] of Object.entries(untracked)) write(path, content);
  const forced: string[] = [];
  if (options.forceAdded) {
    write('build/keep.js', textFile(8));
    write('fixtures/expected.log', 'expected output\n');
    forced.push('build/keep.js', 'fixtures/expected.log');
  }
  if (options.nestedNegation) {
    write('vendor/.gitignore', '!/node_modules/\n');
    write('vendor/node_modules/dep/index.js', textFile(6));
    texts.push('vendor/node_modules/dep/index.js');
  }
  /** Each link's target file (repository path): a linked file is never deleted or renamed. */
  const links = new Map<string, string>();
  const linked = (path: string) => [...links.values()].includes(path);
  const addLink = (path: string, target: string) => {
    mkdirSync(dirname(at(path)), { recursive: true });
    symlinkSync(relative(dirname(at(path)), at(target)), at(path));
    links.set(path, target);
  };
  if (options.symlinks) {
    addLink('links/to-first', texts[0]!);
    addLink('src/current', texts[1]!);
  }
  const commit = (message: string) => {
    git(repo, ['add', '-A']);
    if (forced.length > 0) git(repo, ['add', '-f', ...forced.filter((path) => existsSync(at(path)))]);
    git(repo, ['commit', '-q', '--allow-empty', '-m', message]);
    return git(repo, ['rev-parse', 'HEAD']).toString().trim();
  };
  const commits = [commit('initial')];
  let fresh = options.files;

  const editText = (path: string) => {
    const lines = readFileSync(at(path), 'utf8').split('\n');
    for (let count = 1 + Math.floor(next() * 4); count > 0; count--) {
      const where = Math.floor(next() * Math.max(1, lines.length - 1));
      const choice = next();
      if (choice < 0.5) lines[where] = line(where);
      else if (choice < 0.8) lines.splice(where, 0, line(where));
      else if (lines.length > 3) lines.splice(where, 1);
    }
    writeFileSync(at(path), lines.join('\n'));
  };

  for (let number = 1; number <= options.commits; number++) {
    const actions = 1 + Math.floor(next() * 4);
    for (let action = 0; action < actions; action++) {
      const roll = next();
      if (roll < 0.35 && texts.length > 0) editText(pick(texts));
      else if (roll < 0.45) {
        const path = `${pick(dirs)}/new-${fresh++}.ts`;
        write(path, textFile(3 + Math.floor(next() * 30)));
        texts.push(path);
      } else if (roll < 0.52 && texts.length > 8) {
        const path = pick(texts.filter((candidate) => !linked(candidate)));
        if (path) {
          unlinkSync(at(path));
          texts.splice(texts.indexOf(path), 1);
        }
      } else if (roll < 0.6 && texts.length > 0) {
        const from = pick(texts.filter((candidate) => !candidate.startsWith('vendor/') && !linked(candidate)));
        if (from) {
          const to = `${pick(dirs)}/renamed-${fresh++}.ts`;
          mkdirSync(dirname(at(to)), { recursive: true });
          renameSync(at(from), at(to));
          if (next() < 0.5) editText(to);
          texts[texts.indexOf(from)] = to;
        }
      } else if (roll < 0.67) {
        const path = pick(binaries);
        const content = readFileSync(at(path));
        if (next() < 0.5) for (let count = 0; count < 20; count++) content[Math.floor(next() * content.length)] = Math.floor(next() * 256);
        write(path, next() < 0.5 ? content : binary(1000 + Math.floor(next() * 8000)));
      } else if (roll < 0.72) {
        const script = 'scripts/build.sh';
        chmodSync(at(script), next() < 0.5 ? 0o755 : 0o644);
        writeFileSync(at(script), `${readFileSync(at(script), 'utf8')}echo step ${number}\n`);
      } else if (roll < 0.82 && options.symlinks) {
        changeLink();
      } else if (roll < 0.88 && options.forceAdded) {
        const path = pick(forced);
        write(path, `${existsSync(at(path)) ? readFileSync(at(path), 'utf8') : ''}changed in ${number}\n`);
      } else {
        for (let count = 1 + Math.floor(next() * 3); count > 0; count--) lockVersions[Math.floor(next() * lockLines)]!++;
        write('package-lock.json', lockFile());
      }
    }
    // Every fourth commit changes the files the features are about, so each feature meets tool
    // writes and shell commands alike whatever the seed.
    if (options.nestedNegation && number % 4 === 0) editText('vendor/node_modules/dep/index.js');
    if (options.forceAdded && number % 4 === 2)
      write(forced[number % forced.length]!, `${readFileSync(at(forced[number % forced.length]!), 'utf8')}changed in ${number}\n`);
    if (number === Math.ceil(options.commits / 2)) {
      // A nested ignore file changes: its rules now also cover *.bak.
      write('pkg/.gitignore', '*.tmp\n/local/\n*.bak\n');
    }
    commits.push(commit(`commit ${number}`));
  }
  return { repo, commits, untracked };

  function changeLink(): void {
    const roll = next();
    const candidates = texts.filter((path) => !path.startsWith('vendor/') && !path.startsWith('links/'));
    if (links.size === 0 || roll < 0.3) {
      addLink(`links/link-${fresh++}`, pick(candidates));
    } else if (roll < 0.6) {
      const link = pick([...links.keys()]);
      unlinkSync(at(link));
      links.delete(link);
      addLink(link, pick(candidates));
    } else if (roll < 0.8) {
      // A link replaced by a regular file (a type change in git's terms); it may become a link again later.
      const link = pick([...links.keys()]);
      unlinkSync(at(link));
      links.delete(link);
      write(link, textFile(3));
      texts.push(link);
    } else {
      const link = pick([...links.keys()]);
      unlinkSync(at(link));
      links.delete(link);
    }
    const file = texts.find((path) => path.startsWith('links/'));
    if (file && roll > 0.9) {
      // And a file that used to be a link becomes one again.
      unlinkSync(at(file));
      texts.splice(texts.indexOf(file), 1);
      addLink(file, pick(candidates));
    }
  }
}

/** Removes a generated history's directory. */
export function removeHistory(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
