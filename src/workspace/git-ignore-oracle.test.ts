import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceIgnores } from './ignore-status.js';
import { scanWorkspace } from './scanner.js';
import { Workspace } from './workspace.js';

// Generated trees and ignore files (and now and then force-added files), each decided by the
// scanner and by git itself in a real repository: `git check-ignore --no-index` for every path, `git status --ignored=matching` for
// what a scan reports. Git reads no configuration of this machine's user (HOME points at an
// empty directory) and neither does the scan.
const CASES = Number(process.env.WAYPOINT_IGNORE_CASES ?? 300);
// A bound on the run, not an assertion: past this many seconds (and at least MIN_CASES cases) the
// rest of the cases are left for the next run, so a loaded box cannot push the file past its time.
const BUDGET_MS = Number(process.env.WAYPOINT_IGNORE_BUDGET_MS ?? 20_000);
const MIN_CASES = Math.min(CASES, 100);
// A fixed seed by default, so a run in CI is the same every time; WAYPOINT_SEED explores others.
const SEED = Number(process.env.WAYPOINT_SEED ?? 20261201);

const NAMES = [
  'a',
  'b',
  'ab',
  'A',
  'x.log',
  'y.txt',
  'node_modules',
  'build',
  'foo',
  'Foo',
  'sp ace',
  'tr ',
  '#h',
  '!n',
  '[k]',
  'st*r',
  'q?',
  'b\\s',
  'é',
  'keep',
  'a.b.c',
  'dist',
];

function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    chance: (p: number) => next() < p,
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}
type Random = ReturnType<typeof random>;

/** A literal name as a pattern: special characters escaped, or left raw now and then (then they glob). */
function literal(rng: Random, name: string): string {
  if (rng.chance(0.15)) return name;
  let out = name.replace(/[*?[\\]/g, (c) => `\\${c}`);
  if (out.startsWith('#') || out.startsWith('!')) out = `\\${out}`;
  if (out.endsWith(' ')) out = `${out.slice(0, -1)}\\ `;
  return out;
}

function segment(rng: Random): string {
  const name = rng.pick(NAMES);
  switch (rng.int(12)) {
    case 0:
      return '*';
    case 1:
      return '**';
    case 2:
      return `*${literal(rng, name.slice(-2))}`;
    case 3:
      return `${literal(rng, name.slice(0, 1))}*`;
    case 4:
      return name.length > 1 ? `${literal(rng, name.slice(0, 1))}?${literal(rng, name.slice(2))}` : '?';
    case 5:
      return `${rng.pick(['[ab]', '[!a]', '[^x]', '[a-c]', '[A-Z]', '[[:alpha:]]', '[[:upper:]]', '[[:digit:]]', '[]a]', '[a-]', '[\\]]', '[[:bogus:]]', '[a'])}*`;
    case 6:
      return `${literal(rng, name)}*`;
    case 7:
      return '*.*';
    default:
      return literal(rng, name);
  }
}

function rule(rng: Random): string {
  const parts = Array.from({ length: 1 + (rng.chance(0.4) ? rng.int(3) : 0) }, () => segment(rng));
  let text = parts.join('/');
  if (rng.chance(0.25)) text = `/${text}`;
  if (rng.chance(0.15)) text = `**/${text}`;
  if (rng.chance(0.25)) text = `${text}/`;
  if (rng.chance(0.3)) text = `!${text}`;
  if (rng.chance(0.1)) text = `${text}  `;
  if (rng.chance(0.05)) text = `${text}\\ `;
  if (rng.chance(0.05)) text = `\t${text}`;
  return text;
}

function ignoreFile(rng: Random): string {
  const lines = Array.from({ length: 1 + rng.int(6) }, () => (rng.chance(0.08) ? rng.pick(['# comment', '', '   ']) : rule(rng)));
  const ending = rng.chance(0.15) ? '\r\n' : '\n';
  return lines.join(ending) + (rng.chance(0.8) ? ending : '');
}

/** Writes a random tree under `dir`; returns every path made (directories too), relative to `top`. */
function makeTree(rng: Random, top: string, relative: string, depth: number, paths: string[]): void {
  const dir = relative === '' ? top : join(top, relative);
  const used = new Set<string>();
  const count = 1 + rng.int(5);
  let files = 0;
  for (let index = 0; index < count || files === 0; index++) {
    const name = rng.pick(NAMES);
    if (used.has(name)) continue;
    used.add(name);
    const path = relative === '' ? name : `${relative}/${name}`;
    if (depth < 3 && rng.chance(0.35)) {
      mkdirSync(join(top, path));
      paths.push(path);
      makeTree(rng, top, path, depth + 1, paths);
    } else if (rng.chance(0.04)) {
      symlinkSync('.', join(top, path));
      paths.push(path);
      files++;
    } else {
      writeFileSync(join(top, path), path);
      paths.push(path);
      files++;
    }
  }
  if (rng.chance(0.45)) {
    writeFileSync(join(dir, '.gitignore'), ignoreFile(rng), 'latin1');
    paths.push(relative === '' ? '.gitignore' : `${relative}/.gitignore`);
  }
}

let home: string;
const saved: Record<string, string | undefined> = {};
const isolated = { HOME: '', XDG_CONFIG_HOME: '', GIT_CONFIG_NOSYSTEM: '1' };

beforeAll(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'wp-git-home-')));
  isolated.HOME = home;
  isolated.XDG_CONFIG_HOME = join(home, '.config');
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

function git(top: string, args: string[], input?: string): string {
  const result = spawnSync('git', args, { cwd: top, input, env: { ...process.env, ...isolated, GIT_OPTIONAL_LOCKS: '0' }, maxBuffer: 1 << 26 });
  // check-ignore exits 1 when it ignores none of the paths.
  if (result.status !== 0 && !(args[0] === 'check-ignore' && result.status === 1)) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.toString('utf8');
}

/** Git's verdict for each path (ignored or not), from `check-ignore -v -n -z`. */
function gitIgnored(top: string, paths: readonly string[]): Map<string, string | null> {
  const out = git(top, ['check-ignore', '--no-index', '-v', '-n', '-z', '--stdin'], `${paths.join('\0')}\0`).split('\0');
  const verdicts = new Map<string, string | null>();
  for (let index = 0; index + 3 < out.length; index += 4) {
    const [source, line, pattern, path] = [out[index]!, out[index + 1]!, out[index + 2]!, out[index + 3]!];
    verdicts.set(path, source !== '' && !pattern.startsWith('!') ? `${source}:${line}:${pattern}` : null);
  }
  return verdicts;
}

function gitStatusIgnored(top: string): string[] {
  return git(top, ['status', '--porcelain', '--ignored=matching', '--untracked-files=all', '-z'])
    .split('\0')
    .filter((line) => line.startsWith('!! '))
    .map((line) => line.slice(3))
    .sort();
}

describe('ignore decisions match git on generated trees', () => {
  it(`agrees with git check-ignore and git status on up to ${CASES} generated cases (seed ${SEED}, WAYPOINT_SEED to replay)`, () => {
    const top = realpathSync(mkdtempSync(join(tmpdir(), 'wp-git-ignore-')));
    git(top, ['init', '-q']);
    const excludesFile = join(home, 'excludes');
    const tally = { cases: 0, kept: 0, ignored: 0, forced: 0 };
    try {
      const started = Date.now();
      for (let run = 0; run < CASES; run++) {
        if (run >= MIN_CASES && Date.now() - started > BUDGET_MS) break;
        const rng = random(SEED + run);
        tally.cases++;
        for (const name of readdirSync(top)) if (name !== '.git') rmSync(join(top, name), { recursive: true, force: true });
        rmSync(join(top, '.git', 'index'), { force: true });
        const paths: string[] = [];
        makeTree(rng, top, '', 0, paths);
        writeFileSync(join(top, '.git', 'info', 'exclude'), rng.chance(0.3) ? ignoreFile(rng) : '', 'latin1');
        const useExcludes = rng.chance(0.3);
        if (useExcludes) writeFileSync(excludesFile, ignoreFile(rng), 'latin1');
        // Written directly (as `git config` would) to spare two processes a case.
        const ignoreCase = rng.chance(0.15);
        writeFileSync(
          join(top, '.git', 'config'),
          `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tignorecase = ${ignoreCase}\n\texcludesFile = ${useExcludes ? excludesFile : '""'}\n`,
        );
        const label = `case ${run} of seed ${SEED} (replay: WAYPOINT_SEED=${SEED + run} WAYPOINT_IGNORE_CASES=1)`;

        const verdicts = gitIgnored(top, paths);
        for (const verdict of verdicts.values()) tally[verdict === null ? 'kept' : 'ignored']++;
        const isDir = (path: string) => paths.some((other) => other.startsWith(`${path}/`));
        // Now and then some ignored files are force-added: git tracks them whatever the rules say.
        const forced = rng.chance(0.3) ? paths.filter((path) => verdicts.get(path) !== null && !isDir(path) && rng.chance(0.3)) : [];
        // With core.ignoreCase git refuses a second path differing only in case (and treats the two as one).
        if (ignoreCase) forced.splice(0, forced.length, ...new Map(forced.map((path) => [path.toLowerCase(), path])).values());
        const sameFile = (a: string, b: string) => (ignoreCase ? a.toLowerCase() === b.toLowerCase() : a === b);
        if (forced.length > 0) git(top, ['--literal-pathspecs', 'add', '-f', '--', ...forced]);
        tally.forced += forced.length;
        const keptByGit = (path: string) =>
          verdicts.get(path) === null || forced.some((file) => sameFile(file, path) || sameFile(file.slice(0, path.length + 1), `${path}/`));
        const workspace = new Workspace({ roots: [{ name: 'workspace', dir: top, kind: 'workspace' }] });
        const scan = scanWorkspace(workspace);
        const reported = new Set(scan.skipped.filter((skip) => skip.reason === 'ignored').map((skip) => skip.path.slice('workspace:'.length)));
        const ignoredByScan = (path: string) => {
          for (let at = path.length; at > 0; at = path.lastIndexOf('/', at - 1)) if (reported.has(path.slice(0, at))) return true;
          return false;
        };
        const status = workspaceIgnores(top);
        const disagreements: string[] = [];
        for (const path of paths) {
          const byGit = keptByGit(path) ? null : verdicts.get(path)!;
          const isDirectory = isDir(path);
          if (ignoredByScan(path) !== (byGit !== null))
            disagreements.push(
              `${JSON.stringify(path)}: git ${byGit ?? (verdicts.get(path) ? 'tracks it' : 'not ignored')}, scan ${ignoredByScan(path) ? 'ignored' : 'kept'}`,
            );
          if ((status.status(path, isDirectory) === 'ignored') !== (byGit !== null))
            disagreements.push(`${JSON.stringify(path)}: workspaceIgnores says ${status.status(path, isDirectory)}`);
        }
        const files = paths.filter((path) => keptByGit(path) && !isDir(path));
        for (const file of files)
          if (!scan.snapshot.has(`workspace:${file}`)) disagreements.push(`${JSON.stringify(file)}: not ignored by git, missing from the snapshot`);
        const statusIgnored = gitStatusIgnored(top);
        const scanReported = [...reported].map((path) => (isDir(path) ? `${path}/` : path)).sort();
        if (disagreements.length > 0 || JSON.stringify(statusIgnored) !== JSON.stringify(scanReported)) {
          const sources = [...paths.filter((path) => path.endsWith('.gitignore')), '.git/info/exclude'].map((path) => join(top, path));
          if (useExcludes) sources.push(excludesFile);
          const rules = sources.map((path) => `${path}: ${JSON.stringify(readFileSync(path, 'latin1'))}`);
          expect.fail(
            `${label}\nforce-added: ${JSON.stringify(forced)}\n${disagreements.join('\n')}\ngit status ignored: ${JSON.stringify(statusIgnored)}\nscan reported: ${JSON.stringify(scanReported)}\n${rules.join('\n')}`,
          );
        }
      }
      if (process.env.WAYPOINT_IGNORE_TALLY) console.log(tally);
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  }, 180_000);
});
