import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_NAMES, loadCommand, loadCommands } from '../../src/cli/command-loaders.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'waypoint.js');

/**
 * A command's module is loaded only when it runs: `waypoint log` starts without the chat's terminal
 * UI, the protocol server or the MCP server. Checked on the built CLI with a module hook that lists
 * every module of `dist/` the process loads.
 */
describe('the CLI loads only the command it runs', () => {
  let dir: string;
  let register: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-lazy-'));
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (result.url.includes('/dist/')) appendFileSync(process.env.LOADED_LOG, result.url + '\\n');
  return result;
}
`,
    );
    register = join(dir, 'register.mjs');
    writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The command chunks of the CLI's bundle (`dist/bin/chunks/<command module>-<hash>.js`) loaded by `waypoint <args>`, and its exit code. */
  const commandsLoaded = (name: string, ...args: string[]): { code: number | null; modules: string[] } => {
    const log = join(dir, `${name}.log`);
    writeFileSync(log, '');
    const result = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, BIN, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, WAYPOINT_HOME: dir, LOADED_LOG: log },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const loaded = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    // bin/waypoint.js runs the bundle: nothing of tsc's module-per-file output is loaded.
    expect(loaded.filter((url) => !url.includes('/dist/bin/'))).toEqual([]);
    const modules = new Set(
      loaded
        .map((url) => /\/dist\/bin\/chunks\/([^/]+)-[0-9A-Z]{8}\.js$/.exec(url)?.[1])
        // Shared code is split into `chunk-<hash>.js` files, whatever command loads it.
        .filter((module): module is string => module !== undefined && module !== 'chunk'),
    );
    return { code: result.status, modules: [...modules].sort() };
  };

  it('`log --help` loads the log command alone; `--version` and a usage error load none', () => {
    const log = commandsLoaded('log', 'log', '--help');
    expect(log.code).toBe(0);
    expect(log.modules).toContain('log');
    expect(log.modules).not.toContain('chat');
    expect(log.modules).not.toContain('serve');
    expect(log.modules).not.toContain('mcp');
    expect(commandsLoaded('version', '--version')).toEqual({ code: 0, modules: [] });
    expect(commandsLoaded('unknown', 'frobnicate')).toEqual({ code: 2, modules: [] });
  });

  it('the full reference still lists every command, in the table order', async () => {
    const commands = await loadCommands();
    expect(commands.map((command) => command.name)).toEqual([...COMMAND_NAMES]);
    expect(new Set(COMMAND_NAMES).size).toBe(COMMAND_NAMES.length);
    expect(await loadCommand('no-such-command')).toBeUndefined();
  });
});
