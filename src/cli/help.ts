import { GLOBAL_FLAGS, type FlagSpec, type FlagSpecs } from './args.js';
import type { Command } from './command.js';

const INTRO = 'waypoint — checkpoints, rewind and fork for AI agent sessions';

const EXIT_CODES = [
  '0 success · 1 unexpected failure · 2 usage or invalid argument · 3 not found (session, message, checkpoint …)',
  '4 conflict with the current state (files changed, confirmation needed, nothing to rewind …) · 5 store problem (disk full, unusable path …) · 6 corrupt stored content or export file',
];

function flagLines(flags: FlagSpecs): string[] {
  return Object.entries(flags).map(([name, spec]: [string, FlagSpec]) => {
    const short = 'short' in spec && spec.short ? `-${spec.short}, ` : '';
    const value = spec.type === 'string' ? ` <${spec.value}>` : spec.type === 'optional' ? ` [${spec.value}]` : '';
    return `    ${`${short}--${name}${value}`.padEnd(32)} ${spec.description}${spec.type === 'string' && spec.multiple ? ' (repeatable)' : ''}`;
  });
}

/** `waypoint <command> --help`. */
export function commandHelp(command: Command): string {
  return [
    `waypoint ${command.name} — ${command.summary}`,
    '',
    'Usage:',
    ...command.synopsis.map((line) => `  waypoint ${line}`),
    ...(command.description?.length ? ['', ...command.description.map((line) => `  ${line}`)] : []),
    ...(Object.keys(command.flags).length ? ['', 'Options:', ...flagLines(command.flags)] : []),
    '',
    'Global options:',
    ...flagLines(GLOBAL_FLAGS),
  ].join('\n');
}

/** `waypoint --help`: the full reference. */
export function fullHelp(commands: readonly Command[]): string {
  const lines = [INTRO, '', 'Usage: waypoint <command> [arguments] [--store <file | postgres://…>] [--json]', ''];
  for (const command of commands) {
    lines.push(...command.synopsis.map((line) => `  waypoint ${line}`));
    lines.push(`      ${command.summary}`);
    for (const line of command.description ?? []) lines.push(`      ${line}`);
    if (Object.keys(command.flags).length) lines.push(...flagLines(command.flags).map((line) => `  ${line}`));
    lines.push('');
  }
  lines.push(
    '  waypoint --version                print the version',
    '  waypoint --help                   print this reference; `waypoint <command> --help` for one command',
    '',
  );
  lines.push('Global options:', ...flagLines(GLOBAL_FLAGS), '');
  lines.push('Ids: sessions ses_…, messages msg_…, checkpoints chk_…, file rewinds jnl_… (`sessions`, `show`, `checkpoints` and `rewind … status` list them).');
  lines.push('Progress of long operations goes to stderr: a bar on a terminal, plain lines otherwise.', '');
  lines.push('Exit codes:', ...EXIT_CODES.map((line) => `  ${line}`));
  lines.push('', 'The interactive chat (`waypoint chat`, with /rewind, /fork, /side …) comes with the agent runtime.');
  return lines.join('\n');
}
