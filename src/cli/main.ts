// Narrow imports: `--version`, `--help` and a usage error load no more than they need (see `command-loaders.ts`).
import { defaultStoreLocation, resolveStoreLocation } from '../engine/store-location.js';
import { isClaudeSessionId, waypointSessionIdFor } from '../integrations/claude/claude-ids.js';
import { WaypointError } from '../model/index.js';
import { packageRoot } from '../model/package-root.js';
import { GLOBAL_FLAGS, parseArgs, type FlagSpecs } from './args.js';
import { UsageError } from './cli-errors.js';
import type { CommandContext } from './command.js';
import { loadCommand, loadCommands } from './command-loaders.js';
import { commandHelp, fullHelp } from './help.js';
import { streamOutput, type Output } from './output.js';
import { terminalConfirm, type Confirm } from './terminal-confirm.js';

export interface MainOptions {
  output?: Output;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** How to ask yes/no; defaults to the terminal's (none when stdin or stderr is not one). */
  confirm?: Confirm;
}

function version(): string {
  return packageRoot().version;
}

/**
 * Runs the CLI with `argv` (without node and script) and returns the exit code. Results go to
 * stdout (text, or one JSON document with `--json`); a `WaypointError` prints its message (or
 * `{ "error": { code, message, details } }` with `--json`) and exits with its own `exitCode`.
 */
export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  const output = options.output ?? streamOutput();
  const env = options.env ?? process.env;
  const json = argv.includes('--json');
  try {
    const [name, ...rest] = argv;
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      const topic = name === 'help' && rest[0] !== undefined ? await loadCommand(rest[0]) : undefined;
      output.print(topic ? commandHelp(topic) : fullHelp(await loadCommands()));
      return 0;
    }
    if (name === '--version' || name === '-v') {
      output.print(json ? JSON.stringify({ version: version() }) : version());
      return 0;
    }
    const command = name.startsWith('-') ? undefined : await loadCommand(name);
    if (!command) throw new UsageError(name.startsWith('-') ? `"${name}" comes after a command` : `unknown command "${name}"`);
    const args = parseArgs(rest, { ...command.flags, ...GLOBAL_FLAGS } as FlagSpecs, { literal: new Set(command.literal ?? []) });
    if (args.flags.help === true) {
      output.print(commandHelp(command));
      return 0;
    }
    // A Claude Code or Codex CLI session id names the Waypoint session its hooks record.
    args.positionals = args.positionals.map((value) => (isClaudeSessionId(value) ? waypointSessionIdFor(value) : value));
    const { min, max } = command.positionals;
    if (args.positionals.length < min)
      throw new UsageError(
        `\`waypoint ${command.name}\` needs ${command.synopsis[0]!.split(' ')
          .slice(1, 1 + min)
          .join(' ')}`,
        { command: command.name },
      );
    if (args.positionals.length > max) throw new UsageError(`unexpected argument "${args.positionals[max]}"`, { command: command.name });
    const cwd = options.cwd ?? process.cwd();
    const store = args.flags.store as string | undefined;
    const confirm = json ? undefined : (options.confirm ?? terminalConfirm());
    const context: CommandContext = {
      storePath: store === undefined ? defaultStoreLocation(env, cwd) : resolveStoreLocation(store, cwd),
      json,
      cwd,
      output,
      ...(confirm ? { confirm } : {}),
    };
    const result = await command.run(context, args as never);
    if (json) output.print(JSON.stringify(result.data, null, 2));
    else for (const line of result.text) output.print(line);
    return 0;
  } catch (error) {
    const typed = WaypointError.is(error)
      ? error
      : new WaypointError({ code: 'INTERNAL', message: `Unexpected failure: ${error instanceof Error ? error.message : String(error)}`, cause: error });
    if (json) output.print(JSON.stringify({ error: typed.toJSON() }, null, 2));
    else output.note(`waypoint: ${typed.message}`);
    if (!WaypointError.is(error) && env.WAYPOINT_DEBUG && error instanceof Error && error.stack) output.note(error.stack);
    return typed.exitCode;
  }
}
