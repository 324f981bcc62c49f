import { existsSync } from 'node:fs';
import { isStoreFile, openWaypoint, type Waypoint } from '../engine/index.js';
import type { FlagSpecs, GLOBAL_FLAGS, ParsedArgs } from './args.js';
import { StoreNotFoundError } from './cli-errors.js';
import type { Output } from './output.js';
import type { Confirm } from './terminal-confirm.js';

/** What every command runs with. */
export interface CommandContext {
  /** The store: a file or a `postgres://` URL (`--store`, else `$WAYPOINT_STORE`, else `$WAYPOINT_HOME`, else `~/.waypoint`). Show it with `storeLabel`, never as is. */
  storePath: string;
  json: boolean;
  /** Relative paths on the command line resolve against this. */
  cwd: string;
  output: Output;
  /** Asks the person yes/no on a terminal; absent when not on one (or with `--json`), where a command that must ask refuses instead. */
  confirm?: Confirm;
}

/** A command's result: the data (`--json` prints it) and the lines a person reads. */
export interface CommandOutput {
  data: unknown;
  text: string[];
}

/**
 * One `waypoint` command: its flags, its reference text and its handler. Each command file exports
 * one of these plus the plain functions it is built from, so tests can call them directly.
 */
export interface Command<Specs extends FlagSpecs = FlagSpecs> {
  name: string;
  /** Usage lines, without the leading `waypoint `. */
  synopsis: string[];
  summary: string;
  /** Reference paragraphs printed by `waypoint <command> --help` and `waypoint --help`. */
  description?: string[];
  flags: Specs;
  /** How many positionals the command takes (checked before `run`). */
  positionals: { min: number; max: number };
  /** Tokens that are positionals although they start with `-`. */
  literal?: string[];
  run(context: CommandContext, args: ParsedArgs<Specs & typeof GLOBAL_FLAGS>): Promise<CommandOutput>;
}

/** Helps type a command's `run` against its own flags. */
export function defineCommand<Specs extends FlagSpecs>(command: Command<Specs>): Command<Specs> {
  return command;
}

/**
 * Opens the store for one command and closes it after. A missing store is an error: a command never
 * creates one by accident. Reading commands open it writable too: opening first rolls back any file
 * rewind a crash left unfinished (so what is shown is what is on disk), and a read-only SQLite
 * connection would leave an empty `-wal` file behind, while a writable one that writes nothing
 * leaves the store byte-identical. (A store file this user may not write still opens, read-only.)
 */
export async function withWaypoint<Result>(context: CommandContext, body: (waypoint: Waypoint) => Promise<Result>): Promise<Result> {
  if (isStoreFile(context.storePath) && !existsSync(context.storePath)) throw new StoreNotFoundError(context.storePath);
  const waypoint = await openWaypoint({ path: context.storePath });
  try {
    if (waypoint.recovery && waypoint.recovery.recovered.length > 0) {
      context.output.note(
        `waypoint: recovered ${waypoint.recovery.recovered.length} file rewind(s) a crash left unfinished (files put back as they were before them)`,
      );
    }
    return await body(waypoint);
  } finally {
    await waypoint.close();
  }
}
