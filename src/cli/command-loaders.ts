import type { Command } from './command.js';

// biome-ignore lint/suspicious/noExplicitAny: each command is typed by its own flags; the table holds them all.
type AnyCommand = Command<any>;

/**
 * Every command's module, by name, in the order the reference lists them. A command's module is
 * imported only when it runs (or when the full reference lists them all), so `waypoint log` does
 * not load the chat's terminal UI, the protocol server or the MCP server first.
 */
const LOADERS: ReadonlyArray<readonly [name: string, load: () => Promise<AnyCommand>]> = [
  ['chat', async () => (await import('./commands/chat.js')).chatCommand],
  ['sessions', async () => (await import('./commands/sessions.js')).sessionsCommand],
  ['log', async () => (await import('./commands/log.js')).logCommand],
  ['show', async () => (await import('./commands/show.js')).showCommand],
  ['checkpoints', async () => (await import('./commands/checkpoints.js')).checkpointsCommand],
  ['diff', async () => (await import('./commands/diff.js')).diffCommand],
  ['rewind', async () => (await import('./commands/rewind.js')).rewindCommand],
  ['redo', async () => (await import('./commands/redo.js')).redoCommand],
  ['fork', async () => (await import('./commands/fork.js')).forkCommand],
  ['continue', async () => (await import('./commands/continue.js')).continueCommand],
  ['gc', async () => (await import('./commands/gc.js')).gcCommand],
  ['sweep', async () => (await import('./commands/sweep.js')).sweepCommand],
  ['usage', async () => (await import('./commands/usage.js')).usageCommand],
  ['export', async () => (await import('./commands/transfer.js')).exportCommand],
  ['import', async () => (await import('./commands/transfer.js')).importCommand],
  ['hooks', async () => (await import('./commands/hooks.js')).hooksCommand],
  ['mcp', async () => (await import('./commands/mcp.js')).mcpCommand],
  ['serve', async () => (await import('./commands/serve.js')).serveCommand],
  ['demo', async () => (await import('./commands/demo-command.js')).demoCommand],
];

/** The command names, in reference order. */
export const COMMAND_NAMES: readonly string[] = LOADERS.map(([name]) => name);

/** The command called `name`, its module loaded now; undefined for a name no command has. */
export async function loadCommand(name: string): Promise<AnyCommand | undefined> {
  const entry = LOADERS.find(([candidate]) => candidate === name);
  if (!entry) return undefined;
  const command = await entry[1]();
  if (command.name !== name) throw new Error(`the command table names "${name}", but its module exports "${command.name}"`);
  return command;
}

/** Every command, in reference order (all modules loaded: for the full reference). */
export async function loadCommands(): Promise<AnyCommand[]> {
  return Promise.all(COMMAND_NAMES.map(async (name) => (await loadCommand(name))!));
}
