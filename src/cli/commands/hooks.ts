import {
  applySettingsChange,
  codexHookCommand,
  codexHooksPath,
  hookCommand,
  hookFilesPath,
  helperReport,
  type HelperReport,
  hookStoreFlags,
  installedCodexHooks,
  planCodexInstall,
  planCodexUninstall,
  runCodexHook,
  installedHooks,
  planInstall,
  planUninstall,
  recentHookFailures,
  runClaudeHook,
  serveHookHelper,
  settingsPath,
  type HookAgent,
  type SettingsChange,
  writeStoreUrlFile,
} from '../../integrations/index.js';
import { isStoreFile } from '../../engine/index.js';
import { UsageError } from '../cli-errors.js';
import { defineCommand, type CommandContext } from '../command.js';

export const hooksFlags = {
  scope: {
    type: 'string',
    value: 'project|user',
    description:
      "which hooks file: the project's (default; .claude/settings.json, .codex/hooks.json) or the user's (~/.claude/settings.json, $CODEX_HOME/hooks.json)",
  },
  'dry-run': { type: 'boolean', description: 'show the change to the hooks file; write nothing' },
} as const;

const AGENTS: readonly HookAgent[] = ['claude', 'codex'];
const AGENT_NAMES: Record<HookAgent, string> = { claude: 'Claude Code', codex: 'Codex CLI' };

export const hooksCommand = defineCommand({
  name: 'hooks',
  synopsis: [
    'hooks install claude|codex [--scope project|user] [--dry-run]',
    'hooks uninstall claude|codex [--scope project|user] [--dry-run]',
    'hooks status [--scope project|user]',
    'hooks run claude|codex',
    'hooks serve claude|codex',
  ],
  summary: "record Claude Code and Codex CLI sessions through their hooks: install, remove, check; `run` is the hooks' own command",
  description: [
    "install: adds Waypoint's entries to the agent's hooks file (Claude Code's settings.json, Codex's hooks.json; every hook already there is kept) and prints the change; installing twice changes nothing.",
    "uninstall: removes exactly those entries. status: what is installed where, the resident helper (pid, port, events recorded per agent), and the handlers' latest failures.",
    'run: what Claude Code and Codex CLI run for each event (the event JSON on stdin); it always exits 0, so a failure never stops the agent (see status).',
    "It hands the event to the store's resident helper, one for both agents (`hooks serve`, started on demand, stopping after 10 idle minutes; status shows it); WAYPOINT_HOOK_HELPER=off handles each event in its own process.",
    'A Claude or Codex session can then be named by its own session id wherever a session id is taken: `waypoint rewind <session-id> …`.',
    "With a database store (--store postgres://… or $WAYPOINT_STORE), install keeps the URL in a file only you can read ($WAYPOINT_HOME/stores/<id>/store.url, 0600) and the hook command names that file: the password is never written into the agent's settings.",
    'Codex runs a new hook only once it is trusted: review it with /hooks in Codex (or pass --dangerously-bypass-hook-trust to `codex exec`); project hooks load once the project is trusted.',
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
    if (agent === undefined || !AGENTS.includes(agent as HookAgent))
      throw new UsageError(`\`waypoint hooks ${action}\` needs the agent: claude or codex`, { command: 'hooks' });
    if (action === 'serve') {
      // One helper per store records both agents' events.
      await serveHookHelper(hookFilesPath(context.storePath), process.env, context.storePath);
      return { data: null, text: [] };
    }
    if (agent === 'codex') return codex(context, action, scope, args.flags['dry-run']);
    if (action === 'run') {
      await runClaudeHook(await readStdin(), { storePath: hookFilesPath(context.storePath), location: context.storePath });
      return { data: null, text: [] };
    }
    const path = settingsPath(scope, context.cwd, process.env.HOME);
    const change = action === 'install' ? planInstall(path, hookCommand({ storeFlags: hookStoreFlags(context.storePath) })) : planUninstall(path);
    const dryRun = args.flags['dry-run'];
    return applyChange(context, action, change, dryRun, scope);
  },
});

/** Writes the change (and, for a database store, the file its URL is kept in) unless it is a dry run. */
function applyChange(context: CommandContext, action: 'install' | 'uninstall', change: SettingsChange, dryRun: boolean, scope: string) {
  const text = renderChange(action, change, dryRun);
  let urlFile: string | null = null;
  if (action === 'install' && !isStoreFile(context.storePath)) {
    urlFile = dryRun ? hookStoreFlags(context.storePath)[1]! : writeStoreUrlFile(context.storePath);
    text.push(`The store's URL ${dryRun ? 'would be' : 'is'} kept in ${urlFile} (readable by you only); the hooks read it from there.`);
  }
  if (!dryRun) applySettingsChange(change);
  return { data: { action, scope, dryRun, path: change.path, changed: change.changed, diff: change.diff, storeUrlFile: urlFile }, text };
}

function renderChange(action: 'install' | 'uninstall', change: SettingsChange, dryRun: boolean): string[] {
  if (!change.changed) return [action === 'install' ? `Waypoint's hooks are already in ${change.path}.` : `No Waypoint hooks in ${change.path}.`];
  const verb = action === 'install' ? (dryRun ? 'Would add' : 'Added') : dryRun ? 'Would remove' : 'Removed';
  return [...change.diff.trimEnd().split('\n'), '', `${verb} Waypoint's hooks ${action === 'install' ? 'to' : 'from'} ${change.path}.`];
}

async function codex(context: CommandContext, action: 'install' | 'uninstall' | 'run', scope: 'project' | 'user', dryRun: boolean) {
  if (action === 'run') {
    await runCodexHook(await readStdin(), { storePath: hookFilesPath(context.storePath), location: context.storePath });
    return { data: null, text: [] };
  }
  const path = codexHooksPath(scope, context.cwd);
  const change = action === 'install' ? planCodexInstall(path, codexHookCommand({ storeFlags: hookStoreFlags(context.storePath) })) : planCodexUninstall(path);
  const result = applyChange(context, action, change, dryRun, scope);
  if (action === 'install' && change.changed)
    result.text.push('Codex runs new hooks once trusted: review them with /hooks in Codex (project hooks also need the project trusted).');
  return result;
}

async function status(context: CommandContext, scope: 'project' | 'user') {
  const helper = await helperReport(hookFilesPath(context.storePath));
  const agents = AGENTS.map((agent) => {
    const path = agent === 'claude' ? settingsPath(scope, context.cwd, process.env.HOME) : codexHooksPath(scope, context.cwd);
    const installed = agent === 'claude' ? installedHooks(path) : installedCodexHooks(path);
    const handled = helper.state === 'serving' ? helper.events[agent] : null;
    return {
      agent,
      path,
      ...installed,
      helper: { state: helper.state, events: handled },
      failures: recentHookFailures(hookFilesPath(context.storePath), 5, agent),
    };
  });
  const text = agents.flatMap(({ agent, path, events, command, failures, helper: { events: handled } }) => [
    events.length > 0
      ? `${AGENT_NAMES[agent]} (${scope}): installed in ${path} for ${events.join(', ')}.`
      : `${AGENT_NAMES[agent]} (${scope}): not installed in ${path}.`,
    ...(command ? [`  runs: ${command}`] : []),
    `  ${helperLine(helper, handled)}`,
    failures.length === 0 ? '  No hook failures logged.' : `  Latest hook failures (${failures.length}):`,
    ...failures.map((failure) => `    ${failure.at} ${failure.event ?? '?'} ${failure.code}: ${failure.message}`),
  ]);
  // Claude's entry at the top level, as before; every agent's under `agents`, the store's helper under `helper`.
  const claude = agents[0]!;
  return { data: { scope, path: claude.path, events: claude.events, command: claude.command, failures: claude.failures, agents, helper }, text };
}

/** The store's resident helper, which both agents' events go through. */
function helperLine(helper: HelperReport, handled: number | null): string {
  if (helper.state === 'stopped') return 'Resident helper: not running (the next event starts it).';
  if (helper.state === 'running')
    return `Resident helper: running${helper.pid === null ? '' : ` (pid ${helper.pid})`}, no counts (starting, or started by another Waypoint version).`;
  return `Resident helper: pid ${helper.pid} on 127.0.0.1:${helper.port} since ${helper.startedAt}, ${handled} event${handled === 1 ? '' : 's'} of this agent recorded.`;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
