import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const BIN = resolve(import.meta.dirname, '..', '..', '..', 'bin', 'waypoint.js');

/** A home (Claude's settings and transcripts, Waypoint's default store) and a project, in a temp dir. */
export function createProject(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'waypoint-claude-'));
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(home);
  mkdirSync(project);
  for (const [path, content] of Object.entries(files)) write(project, path, content);
  return {
    dir,
    home,
    project,
    storePath: join(home, '.waypoint', 'waypoint.db'),
    /** Runs the built CLI in the project with this home, as the person would from another terminal (an object last: more environment). */
    waypoint(...args: Array<string | Record<string, string>>) {
      const extraEnv = typeof args.at(-1) === 'object' ? (args.pop() as Record<string, string>) : {};
      const run = spawnSync(process.execPath, [BIN, ...(args as string[])], {
        cwd: project,
        env: { PATH: process.env.PATH ?? '', HOME: home, ...extraEnv },
        encoding: 'utf8',
        timeout: 60_000,
      });
      return {
        code: run.status,
        stdout: run.stdout,
        stderr: run.stderr,
        // biome-ignore lint/suspicious/noExplicitAny: the CLI's --json documents, read ad hoc.
        json: (): any => JSON.parse(run.stdout),
      };
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export function write(root: string, path: string, content: string): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), content);
}

/** Every file under `root` (Claude's `.claude/` aside) with its exact text. */
export function contents(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (relative: string): void => {
    for (const name of readdirSync(join(root, relative)).sort()) {
      const path = relative ? `${relative}/${name}` : name;
      if (path === '.claude') continue;
      if (lstatSync(join(root, path)).isDirectory()) walk(path);
      else out[path] = readFileSync(join(root, path), 'utf8');
    }
  };
  walk('');
  return out;
}
