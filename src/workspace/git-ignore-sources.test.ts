import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseIndex } from './git-index.js';
import { workspaceIgnores } from './ignore-status.js';
import { scanWorkspace } from './scanner.js';
import { Workspace } from './workspace.js';

// Real repositories; git and the scan both read a HOME of the test's own (no machine config).
let home: string;
const saved: Record<string, string | undefined> = {};
const isolated: Record<string, string> = { GIT_CONFIG_NOSYSTEM: '1' };
const dirs: string[] = [];

beforeAll(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'wp-git-home-')));
  Object.assign(isolated, { HOME: home, XDG_CONFIG_HOME: join(home, '.config') });
  for (const [name, value] of Object.entries(isolated)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
});
afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(home, { recursive: true, force: true });
});
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  rmSync(join(home, '.config'), { recursive: true, force: true });
  rmSync(join(home, '.gitconfig'), { force: true });
});

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', args, { cwd, env: { ...process.env, ...isolated, GIT_OPTIONAL_LOCKS: '0' } });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.toString('utf8');
}

function repository(files: Record<string, string>): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'wp-git-src-')));
  dirs.push(dir);
  git(dir, 'init', '-q');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

function scan(dir: string, options: Parameters<typeof scanWorkspace>[1] = {}) {
  const workspace = new Workspace({ roots: [{ name: 'workspace', dir, kind: 'workspace' }] });
  const result = scanWorkspace(workspace, options);
  const strip = (path: string) => path.slice('workspace:'.length);
  return {
    result,
    files: [...result.snapshot.keys()].map(strip).sort(),
    ignored: result.skipped
      .filter((skip) => skip.reason === 'ignored')
      .map((skip) => strip(skip.path))
      .sort(),
  };
}

/** What git itself would track after `git add -A` (untracked and not ignored, plus the index). */
function gitWouldTrack(dir: string): string[] {
  git(dir, 'add', '-A');
  return git(dir, 'ls-files', '-z').split('\0').filter(Boolean).sort();
}

describe("git's ignore sources", () => {
  it('a nested `!/node_modules/` re-includes the directory a root `node_modules` rule ignores, and the file under it', () => {
    const dir = repository({
      '.gitignore': 'node_modules\n',
      'pkg/.gitignore': '!/node_modules/\n',
      'pkg/node_modules/dep/index.js': 'kept',
      'node_modules/dep/index.js': 'ignored',
      'pkg/src/node_modules/x.js': 'ignored: the negation is anchored to pkg/',
    });
    const { files, ignored } = scan(dir);
    expect(files).toEqual(['.gitignore', 'pkg/.gitignore', 'pkg/node_modules/dep/index.js']);
    expect(ignored).toEqual(['node_modules', 'pkg/src/node_modules']);
    expect(files).toEqual(gitWouldTrack(dir));
  });

  it('a file cannot be re-included when a directory above it is excluded', () => {
    const dir = repository({
      '.gitignore': 'build/\n!build/keep.txt\nlogs/*\n!logs/keep.txt\n',
      'build/keep.txt': 'k',
      'logs/keep.txt': 'k',
      'logs/drop.txt': 'd',
    });
    const { files, ignored } = scan(dir);
    expect(files).toEqual(['.gitignore', 'logs/keep.txt']);
    expect(ignored).toEqual(['build', 'logs/drop.txt']);
    expect(files).toEqual(gitWouldTrack(dir));
  });

  it('.git/info/exclude ignores, and a .gitignore negation overrides it', () => {
    const dir = repository({ '.gitignore': '!keep.secret\n', 'a.secret': 's', 'keep.secret': 'k', 'plain.txt': 'p' });
    writeFileSync(join(dir, '.git', 'info', 'exclude'), '*.secret\n');
    const { files, ignored } = scan(dir);
    expect(files).toEqual(['.gitignore', 'keep.secret', 'plain.txt']);
    expect(ignored).toEqual(['a.secret']);
    expect(files).toEqual(gitWouldTrack(dir));
  });

  it('core.excludesFile from the repository config, from ~/.gitconfig, and git’s default $XDG_CONFIG_HOME/git/ignore', () => {
    const dir = repository({ 'a.bak': 'a', 'b.tmp': 'b', 'c.swp': 'c', 'd.txt': 'd' });
    mkdirSync(join(home, '.config', 'git'), { recursive: true });
    writeFileSync(join(home, '.config', 'git', 'ignore'), '*.swp\n');
    expect(scan(dir).ignored).toEqual(['c.swp']);
    // ~/.gitconfig names another file (with `~/`), replacing the default; info/exclude's negation beats it.
    writeFileSync(join(home, 'global-ignore'), '*.tmp\n*.txt\n');
    writeFileSync(join(home, '.gitconfig'), '[core]\n\texcludesFile = ~/global-ignore\n');
    writeFileSync(join(dir, '.git', 'info', 'exclude'), '!d.txt\n');
    expect(scan(dir).ignored).toEqual(['b.tmp']);
    // The repository's own config wins over the global one.
    writeFileSync(join(home, 'repo-ignore'), '*.bak\n');
    git(dir, 'config', 'core.excludesFile', join(home, 'repo-ignore'));
    const { files, ignored } = scan(dir);
    expect(ignored).toEqual(['a.bak']);
    expect(files).toEqual(gitWouldTrack(dir));
  });

  it('matches case-sensitively as git on Linux, and folds case when core.ignoreCase is set', () => {
    const dir = repository({ '.gitignore': 'Build/\n*.LOG\n', 'build/a.txt': 'a', 'x.log': 'x', 'Build/b.txt': 'b' });
    expect(scan(dir).ignored).toEqual(['Build']);
    git(dir, 'config', 'core.ignoreCase', 'true');
    expect(scan(dir).ignored).toEqual(['Build', 'build', 'x.log']);
  });

  it('escapes, trailing spaces (not tabs), character classes, bytes, `**` and directory-only rules', () => {
    const dir = repository({
      '.gitignore': '\\#notes\n\\!bang\nspace\\ \ntrailing   \ntab\t\n**/deep/**/*.o\nonlydir/\nx?\n[[:digit:]]z\n*.[!o]\n[]]z\n',
      '#notes': '',
      '!bang': '',
      'space ': '',
      trailing: '',
      tab: 'a tab after a rule is part of it',
      'a/deep/b/c/x.o': '',
      'deep/x.o': '',
      'onlydir/f': '',
      'x/onlydir': 'a file named like the directory rule',
      xé: '`?` is one byte, é is two',
      '1z': '',
      'f.c': '',
      ']z': '',
      'kept.txt': '',
    });
    const { files, ignored } = scan(dir);
    expect(ignored).toEqual(['!bang', '#notes', '1z', ']z', 'a/deep/b/c/x.o', 'deep/x.o', 'f.c', 'onlydir', 'space ', 'trailing']);
    expect(files).toEqual(gitWouldTrack(dir));
  });

  it('a root below the top of the work tree follows the .gitignore files above it', () => {
    const dir = repository({
      '.gitignore': '*.log\n/sub/local.txt\n',
      'sub/.gitignore': '!keep.log\n',
      'sub/a.log': 'a',
      'sub/keep.log': 'k',
      'sub/local.txt': 'l',
      'sub/b.txt': 'b',
    });
    const { files, ignored } = scan(join(dir, 'sub'));
    expect(files).toEqual(['.gitignore', 'b.txt', 'keep.log']);
    expect(ignored).toEqual(['a.log', 'local.txt']);
    expect(workspaceIgnores(join(dir, 'sub')).status('local.txt', false)).toBe('ignored');
  });
});

describe("git's index", () => {
  it('keeps force-added files an ignore rule matches, inside ignored directories too, and reports the rest ignored', () => {
    const dir = repository({
      '.gitignore': '*.log\nnode_modules/\n',
      'fixtures/forced.log': 'f',
      'fixtures/other.log': 'o',
      'node_modules/pkg/index.js': 'i',
      'node_modules/pkg/extra.js': 'e',
      'node_modules/left/x.js': 'x',
    });
    git(dir, 'add', '-f', 'fixtures/forced.log', 'node_modules/pkg/index.js');
    const { files, ignored } = scan(dir);
    expect(files).toEqual(['.gitignore', 'fixtures/forced.log', 'node_modules/pkg/index.js']);
    expect(ignored).toEqual(['fixtures/other.log', 'node_modules/left', 'node_modules/pkg/extra.js']);
    const status = workspaceIgnores(dir);
    expect([status.status('fixtures/forced.log', false), status.status('node_modules', true), status.status('node_modules/left', true)]).toEqual([
      'tracked',
      'tracked',
      'ignored',
    ]);
  });

  it('follows the index between scans that reuse cached listings: untracked, the file is ignored again; added, kept again', () => {
    const dir = repository({ '.gitignore': '*.log\n', 'forced.log': 'f', 'a.txt': 'a' });
    git(dir, 'add', '-f', 'forced.log');
    const past = new Date(Date.now() - 3_600_000);
    spawnSync('touch', ['-d', past.toISOString(), dir, join(dir, 'forced.log'), join(dir, 'a.txt'), join(dir, '.gitignore')]);
    const first = scan(dir);
    expect(first.files).toContain('forced.log');
    git(dir, 'rm', '-q', '--cached', 'forced.log');
    const second = scan(dir, { cache: first.result.cache });
    expect(second.files).not.toContain('forced.log');
    expect(second.ignored).toEqual(['forced.log']);
    git(dir, 'add', '-f', 'forced.log');
    const third = scan(dir, { cache: second.result.cache });
    expect(third.files).toContain('forced.log');
    expect(third.result.stats.directoriesRead).toBe(1);
  });

  it('reads index versions 2, 3 and 4, sha256 repositories, and a split index (through git) as git ls-files lists them', () => {
    const dir = repository({ '.gitignore': '*.o\n', 'a.txt': '', 'dir/b.o': '', 'dir/sub/c.txt': '', 'é/ü.txt': '' });
    git(dir, 'add', '-A');
    git(dir, 'add', '-f', 'dir/b.o');
    // An intent-to-add entry has extended flags (index version 3).
    writeFileSync(join(dir, 'new.txt'), '');
    git(dir, 'add', '-N', 'new.txt');
    const expected = git(dir, 'ls-files', '-z').split('\0').filter(Boolean).sort();
    for (const version of ['2', '3', '4']) {
      git(dir, 'update-index', '--index-version', version);
      const parsed = parseIndex(readFileSync(join(dir, '.git', 'index')), 20)!;
      expect(parsed.paths().sort()).toEqual(expected);
      expect(['dir', 'dir/sub', 'é', 'di', 'dir/su', 'a.txt'].map((path) => parsed.hasDirectory(path))).toEqual([true, true, true, false, false, false]);
      expect(['é/ü.txt', 'dir/b.o', 'dir', 'dir/b'].map((path) => parsed.hasFile(path))).toEqual([true, true, false, false]);
    }
    const sha256 = repository({ 'x.txt': '', 'y/z.txt': '' });
    rmSync(join(sha256, '.git'), { recursive: true });
    git(sha256, 'init', '-q', '--object-format=sha256');
    git(sha256, 'add', '-A');
    expect(parseIndex(readFileSync(join(sha256, '.git', 'index')), 32)!.paths()).toEqual(['x.txt', 'y/z.txt']);
    git(dir, 'update-index', '--split-index');
    expect(parseIndex(readFileSync(join(dir, '.git', 'index')), 20)).toBeNull();
    writeFileSync(join(dir, 'forced.o'), '');
    git(dir, 'add', '-f', 'forced.o');
    expect(scan(dir).files).toEqual([...expected, 'forced.o'].sort());
  });

  it('outside a git work tree only the in-tree ignore files apply and nothing is tracked', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'wp-no-git-')));
    dirs.push(dir);
    writeFileSync(join(dir, '.gitignore'), '*.log\n');
    writeFileSync(join(dir, 'a.log'), '');
    writeFileSync(join(dir, 'b.txt'), '');
    const { files, ignored } = scan(dir);
    expect(files).toEqual(['.gitignore', 'b.txt']);
    expect(ignored).toEqual(['a.log']);
    expect(workspaceIgnores(dir).workTree).toBeNull();
  });
});
