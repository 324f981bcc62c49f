import { resolve } from 'node:path';
import { defineCommand } from '../command.js';
import { runDemo } from './demo.js';

export const demoFlags = {
  dir: { type: 'string', value: 'dir', description: 'where the demo workspace and its own store go (default: a new temporary directory)' },
} as const;

/** `waypoint demo`: the agent session of `demo.ts`, wired as a command (it makes its own store; --store is not used). */
export const demoCommand = defineCommand({
  name: 'demo',
  synopsis: ['demo [--dir <dir>]'],
  summary:
    'an agent session (scripted model, real tools) on a fresh workspace and store: file checkpoints, a conflict-checked rewind, redo, conversation rewind, stable / isolated forks, a side chat, the log tree',
  description: [
    'The agent runtime runs every turn with a scripted model: its write, edit and bash tool calls really run and are checkpointed. Needs no network and no API key.',
    'With --dir, the directory must be new or empty. Afterwards, explore the result with `--store <dir>/store/waypoint.db`. With --json, stdout is the result (sessions, preview statuses, rewinds, forks, the log tree) and the printed lines.',
  ],
  flags: demoFlags,
  positionals: { min: 0, max: 0 },
  async run(context, args) {
    const lines: string[] = [];
    const print = context.json ? (line: string) => void lines.push(line) : (line: string) => context.output.print(line);
    const result = await runDemo({ print, ...(args.flags.dir === undefined ? {} : { dir: resolve(context.cwd, args.flags.dir) }) });
    const next = `\nexplore it: waypoint sessions --store ${result.storePath}`;
    if (!context.json) context.output.print(next);
    return { data: { ...result, output: lines }, text: [] };
  },
});
