import type { SlashCommand } from './chat-context.js';
import { compactCommand } from './slash/compact.js';
import { diffCommand } from './slash/diff.js';
import { editCommand, retryCommand } from './slash/edit-retry.js';
import { btwCommand, forkCommand, sideCommand } from './slash/fork.js';
import { redoCommand } from './slash/redo.js';
import { rewindCommand } from './slash/rewind.js';
import { resumeCommand, sessionsCommand, titleCommand } from './slash/sessions.js';
import { undoCommand } from './slash/undo.js';

/** `/rewind code msg_1` → `{ name: 'rewind', args: 'code msg_1' }`. */
export function parseSlash(text: string): { name: string; args: string } {
  const match = /^\/(\S*)\s*([\s\S]*)$/.exec(text.trim());
  return { name: (match?.[1] ?? '').toLowerCase(), args: match?.[2] ?? '' };
}

const helpCommand: SlashCommand = {
  name: 'help',
  aliases: ['?'],
  usage: '/help',
  summary: 'this list',
  whileBusy: true,
  withoutSession: true,
  async run(context) {
    const width = Math.max(...SLASH_COMMANDS.map((command) => command.usage.length));
    for (const command of SLASH_COMMANDS) context.io.print(`  ${command.usage.padEnd(width)}  ${context.io.style.dim(command.summary)}`);
    context.io.print(context.io.style.dim('  Anything else is sent to the agent. Ctrl-C stops a turn; Ctrl-C twice or Ctrl-D on an empty line leaves.'));
  },
};

const exitCommand: SlashCommand = {
  name: 'exit',
  aliases: ['quit'],
  usage: '/exit',
  summary: 'leave (a running turn is stopped first; everything is already saved)',
  whileBusy: true,
  withoutSession: true,
  async run() {
    return 'exit';
  },
};

/** Every slash command, in the order /help lists them. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  rewindCommand,
  undoCommand,
  redoCommand,
  diffCommand,
  editCommand,
  retryCommand,
  forkCommand,
  sideCommand,
  btwCommand,
  compactCommand,
  sessionsCommand,
  resumeCommand,
  titleCommand,
  helpCommand,
  exitCommand,
];

export function findSlashCommand(name: string): SlashCommand | undefined {
  return SLASH_COMMANDS.find((command) => command.name === name || command.aliases?.includes(name));
}
