import {
  applySettingsChange,
  hookCommand,
  installedHooks,
  planInstall,
  planUninstall,
  recentHookFailures,
  runClaudeHook,
  serveHookHelper,
  settingsPath,
  type SettingsChange,
} from '../../integrations/index.js';
import { UsageError } from '../cli-errors.js';
import { defineCommand, type CommandContext } from '../command.js';

export const hooksFlags = {
  scope: {
    type: 'string',
    value: 'project|user',
    description: "which settings file: the project's .claude/settings.json (default) or ~/.claude/settings.json",
  },
  'dry-run': { type: 'boolean', description: 'show the change to the settings file; write nothing' },
} as const;

const AGENTS = ['claude'];

export const hooksCommand = defineCommand({
  name: 'hooks',
  synopsis: [
    'hooks install claude [--scope project|user] [--dry-run]',
    'hooks uninstall claude [--scope project|user] [--dry-run]',
    'hooks status [--scope project|user]',
    'hooks run claude',
  ],
  summary: "record Claude Code sessions through its hooks: install, remove, check; `run` is the hooks' own command",
  description: [
    "install: adds Waypoint's entries to Claude Code's settings file (every hook already there is kept) and prints the change; installing twice changes nothing.",
    "uninstall: removes exactly those entries. status: what is installed where, and the handler's latest failures.",
    'run: what Claude Code runs for each event (the event JSON on stdin); it always exits 0, so a failure never stops the agent (see status).',
    'It hands the event to a resident helper of the store (`hooks serve claude`, started on demand, stopping after 10 idle minutes); WAYPOINT_HOOK_HELPER=off handles each event in its own process.',
    'A Claude session can then be named by its Claude session id wherever a session id is taken: `waypoint rewind <claude-session-id> …`.',
  ],
  flags: hooksFlags,
  positionals: { min: 1, max: 2 },
  async run(context, args) {
    const [action, agent] = args.positionals as [string, string | undefined];
    const scope = args.flags.scope ?? 'project';
    if (scope !== 'project' && scope !== 'user') throw new UsageError(`--scope is project or user, not "${scope}"`, { command: 'hooks' });
    if (action === 'status') return status(context, scope);
    if (action !== 'install' && action !== 'uninstall' && action !== 'run' && action !== 'serve')
      throw new UsageError(`"${action}" is not a hooks action; use install, uninstall, status, run or serve`, { command: 'hooks' });
    if (agent === undefined || !AGENTS.includes(agent)) throw new UsageError(`\`waypoint hooks ${action}\` needs the agent: claude`, { command: 'hooks' });
    if (action === 'serve') {
      await serveHookHelper(context.storePath);
      return { data: null, text: [] };
    }
    if (action === 'run') {
      await runClaudeHook(await readStdin(), { storePath: context.storePath });
      return { data: null, text: [] };
    }
    const path = settingsPath(scope, context.cwd, process.env.HOME);
    const change = action === 'install' ? planInstall(path, hookCommand({ storePath: context.storePath })) : planUninstall(path);
    const dryRun = args.flags['dry-run'];
    if (!dryRun) applySettingsChange(change);
    return { data: { action, scope, dryRun, path, changed: change.changed, diff: change.diff }, text: renderChange(action, change, dryRun) };
  },
});

function renderChange(action: 'install' | 'uninstall', change: SettingsChange, dryRun: boolean): string[] {
  if (!change.changed) return [action === 'install' ? `Waypoint's hooks are already in ${change.path}.` : `No Waypoint hooks in ${change.path}.`];
  const verb = action === 'install' ? (dryRun ? 'Would add' : 'Added') : dryRun ? 'Would remove' : 'Removed';
  return [...change.diff.trimEnd().split('\n'), '', `${verb} Waypoint's hooks ${action === 'install' ? 'to' : 'from'} ${change.path}.`];
}

function status(context: CommandContext, scope: 'project' | 'user') {
  const path = settingsPath(scope, context.cwd, process.env.HOME);
  const installed = installedHooks(path);
  const failures = recentHookFailures(context.storePath);
  const text = [
    installed.events.length > 0
      ? `Claude Code (${scope}): installed in ${path} for ${installed.events.join(', ')}.`
      : `Claude Code (${scope}): not installed in ${path}.`,
    ...(installed.command ? [`  runs: ${installed.command}`] : []),
    failures.length === 0 ? 'No hook failures logged.' : `Latest hook failures (${failures.length}):`,
    ...failures.map((failure) => `  ${failure.at} ${failure.event ?? '?'} ${failure.code}: ${failure.message}`),
  ];
  return { data: { scope, path, ...installed, failures }, text };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
