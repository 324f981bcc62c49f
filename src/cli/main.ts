import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { WaypointError } from '../model/index.js';
import { runDemo } from './commands/demo.js';

const HELP = `waypoint — checkpoints, rewind and fork for AI agent sessions

Usage:
  waypoint demo [--dir <dir>]      a scripted agent session on a fresh workspace and embedded
                                   store: file checkpoints, a conflict-checked rewind, redo,
                                   conversation rewind, stable / isolated forks, a side chat
  waypoint --version               print the version
  waypoint --help                  print this help

The interactive chat and the session commands arrive with the runtime (see README.md).`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Runs the CLI with `argv` (without node and script); returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const json = rest.includes('--json');
  try {
    switch (command) {
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        process.stdout.write(`${HELP}\n`);
        return 0;
      case '--version':
      case '-v':
        process.stdout.write(`${version()}\n`);
        return 0;
      case 'demo': {
        const dirIndex = rest.indexOf('--dir');
        const dir = dirIndex >= 0 ? rest[dirIndex + 1] : undefined;
        if (dirIndex >= 0 && !dir) throw usage('--dir needs a directory');
        await runDemo(dir === undefined ? {} : { dir: resolve(dir) });
        return 0;
      }
      default:
        throw usage(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof WaypointError) {
      process.stderr.write(json ? `${JSON.stringify({ error: error.toJSON() })}\n` : `waypoint: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
}

function usage(reason: string): WaypointError {
  return new WaypointError({ code: 'USAGE', message: `${reason}. Run \`waypoint --help\` for usage.`, exitCode: 2, httpStatus: 400 });
}
