import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig, readGitIgnoreSettings } from './git-config.js';
import { findGitWorkTree } from './git-work-tree.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'wp-git-config-')));
  dirs.push(dir);
  return dir;
}

/** What git itself reads for a key in one file (null when unset). */
function gitGet(file: string, key: string, type?: 'bool'): string | null {
  const result = spawnSync('git', ['config', '--file', file, ...(type ? [`--type=${type}`] : []), '--get', key], {
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
  });
  return result.status === 0 ? result.stdout.toString('utf8').replace(/\n$/, '') : null;
}

describe('git config files', () => {
  it('reads values as git config --get does: quotes, escapes, comments, continuations, spelling of sections and keys', () => {
    const texts = [
      '[core]\n\texcludesFile = ~/plain\n',
      '[core]\n\texcludesfile = "with spaces  and # hash" ; comment\n',
      '[Core]\n  ExcludesFile=a\\\\b\\tc\n',
      '[core]\nexcludesFile = first\n[user]\nname = x\n[core]\nexcludesFile = last # trailing\n',
      '[core]\n\texcludesFile = one \\\n  two\n',
      '# comment\n; another\n[core] excludesFile = same-line\n',
      '[core "sub"]\n\texcludesFile = not-core\n[core]\n\tignoreCase\n',
      '[core]\r\n\texcludesFile = crlf\r\n',
      '[core]\n\texcludesFile = "quoted"tail "and more"\n',
    ];
    const dir = tempDir();
    for (const [index, text] of texts.entries()) {
      const file = join(dir, `config${index}`);
      writeFileSync(file, text);
      const ours = new Map(parseConfig(text));
      expect(ours.get('core.excludesfile') ?? null, JSON.stringify(text)).toBe(gitGet(file, 'core.excludesFile'));
      // A key with no `=` is true (git prints it as empty without a type).
      expect(ours.get('core.ignorecase') ?? null, JSON.stringify(text)).toBe(gitGet(file, 'core.ignoreCase', 'bool'));
    }
  });

  it('follows include.path, and GIT_CONFIG_GLOBAL replaces the global files; the default is $XDG_CONFIG_HOME/git/ignore', () => {
    const home = tempDir();
    const repo = tempDir();
    spawnSync('git', ['init', '-q'], { cwd: repo });
    const workTree = findGitWorkTree(repo)!;
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, 'xdg'), GIT_CONFIG_NOSYSTEM: '1' };
    expect(readGitIgnoreSettings(workTree, env).excludesFile).toBe(join(home, 'xdg', 'git', 'ignore'));
    mkdirSync(join(home, 'conf'));
    writeFileSync(join(home, '.gitconfig'), '[include]\n\tpath = conf/extra\n');
    writeFileSync(join(home, 'conf', 'extra'), '[core]\n\texcludesFile = ~/from-include\n\tignoreCase = yes\n');
    expect(readGitIgnoreSettings(workTree, env)).toMatchObject({ excludesFile: join(home, 'from-include'), ignoreCase: true });
    writeFileSync(join(home, 'only'), '[core]\n\texcludesFile = relative/ignore\n');
    // A relative path is taken from the work tree's top, where git runs.
    expect(readGitIgnoreSettings(workTree, { ...env, GIT_CONFIG_GLOBAL: join(home, 'only') })).toMatchObject({
      excludesFile: join(repo, 'relative', 'ignore'),
      ignoreCase: false,
    });
  });
});
