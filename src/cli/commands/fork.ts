import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { ForkConfirmationRequiredError, ForkHasUnrecordedChangesError, type ForkPreview, type ForkRequest, type IgnoredMode } from '../../fork/index.js';

const IGNORED_MODES: readonly IgnoredMode[] = ['copy', 'link', 'omit'];
import { WaypointError } from '../../model/index.js';
import { discardFork, forkSession, previewFork, type ForkSessionResult } from '../../operations/index.js';
import type { DiscardForkResult } from '../../fork/index.js';
import type { ConflictResolution } from '../../rewind/index.js';
import { type CodexConversationFork, forkCodexConversation } from '../../integrations/index.js';
import { keyValueFlags } from '../args.js';
import { UsageError } from '../cli-errors.js';
import { defineCommand, withWaypoint, type CommandContext } from '../command.js';
import { plural } from '../render/format.js';
import { renderMaterialized } from '../render/fork-render.js';
import { renderFileResult, renderPreview } from '../render/rewind-render.js';

export const forkFlags = {
  message: { type: 'string', value: 'messageId', description: 'fork at this message (the parent must be idle); only changes after it are undone' },
  stable: { type: 'string', value: 'messageId', description: "fork at a completed turn's final reply (the parent may be running); files untouched" },
  side: { type: 'string', value: 'question', description: 'open a side chat about the latest input, asking this question; files untouched' },
  isolated: {
    type: 'optional',
    value: 'dir',
    description: 'give the fork its own directory, materialized at the fork point (default <workdir>.forks/<id>; a dir argument must contain a "/")',
  },
  ignored: {
    type: 'string',
    value: 'copy|link|omit',
    description:
      "with --isolated: ignored paths git does not track (node_modules, build output): copy them (default), link to the parent's (instant; writes through a link change the parent's files), or leave them out",
  },
  title: { type: 'string', value: 'title', description: 'the new session\'s title (default "Fork of <parent title>")' },
  yes: { type: 'boolean', short: 'y', description: "confirm a shared-workspace fork that changes the parent's files" },
  preview: { type: 'boolean', description: 'show what the fork would do (fork point, files it would change); change nothing' },
  force: { type: 'boolean', description: 'with discard: delete even files whose content is recorded nowhere (they are listed)' },
  codex: {
    type: 'boolean',
    description: 'with --message on a Codex CLI session: also write Codex a copy of its conversation cut before that prompt, under a new id for `codex resume`',
  },
  resolve: {
    type: 'string',
    value: 'path=merge|force',
    multiple: true,
    description: 'a way past one conflicting file of a shared-workspace fork (repeatable)',
  },
} as const;

/** What a fork did (the operation's result). */
export type ForkReport = ForkSessionResult;

export interface ForkPreviewReport {
  type: 'preview';
  parentSessionId: string;
  preview: ForkPreview;
}

/**
 * A fork refused for want of confirmation: the preview is printed (human mode) and the refusal
 * says how to confirm on the command line.
 */
function confirmOnCommandLine(context: CommandContext, error: unknown): unknown {
  if (!WaypointError.is(error, 'FORK_NEEDS_CONFIRMATION')) return error;
  const preview = error.details.preview as ForkPreview;
  if (!context.json) for (const line of renderFork({ type: 'preview', parentSessionId: preview.parentSessionId, preview })) context.output.print(line);
  return new ForkConfirmationRequiredError({
    sessionId: preview.parentSessionId,
    files: error.details.files as Array<{ path: string; action: string; status: string }>,
    hint: 'Run it again with --yes to change them (what they hold now is kept, so `waypoint redo` on the parent brings it back), or fork with --isolated.',
    details: { preview },
  });
}

/** The engine request for the command line's fork point and workspace flags. */
export function forkRequest(
  sessionId: string,
  input: {
    point?: string;
    message?: string;
    stable?: string;
    side?: string;
    isolated?: string | true;
    ignored?: string;
    title?: string;
    resolutions?: Record<string, ConflictResolution>;
    cwd: string;
  },
): ForkRequest {
  const chosen = [input.point, input.message, input.stable, input.side].filter((value) => value !== undefined);
  if (chosen.length > 1) throw new UsageError('choose one fork point: latest, a checkpoint id, --message, --stable or --side', { command: 'fork' });
  if (input.ignored !== undefined && !IGNORED_MODES.includes(input.ignored as IgnoredMode))
    throw new UsageError(`--ignored takes copy, link or omit, not "${input.ignored}"`, { command: 'fork' });
  if (input.ignored !== undefined && input.isolated === undefined)
    throw new UsageError('--ignored applies to a fork with its own directory: add --isolated', { command: 'fork' });
  const common = {
    sessionId,
    ...(input.title === undefined ? {} : { title: input.title }),
    ...(input.isolated === undefined
      ? {}
      : {
          workspace: {
            mode: 'isolated' as const,
            ...(input.isolated === true ? {} : { dir: resolve(input.cwd, input.isolated) }),
            ...(input.ignored === undefined ? {} : { ignored: input.ignored as IgnoredMode }),
          },
        }),
    ...(input.resolutions && Object.keys(input.resolutions).length ? { resolutions: input.resolutions } : {}),
  };
  if (input.message !== undefined) return { from: 'message', messageId: input.message, ...common };
  if (input.stable !== undefined) return { from: 'stable', messageId: input.stable, ...common };
  if (input.side !== undefined) return { from: 'side-chat', question: input.side, ...common };
  if (input.point?.startsWith('msg_')) {
    throw new UsageError(`"${input.point}" is a message; fork at it with --message ${input.point} (or --stable ${input.point} at a completed reply)`, {
      command: 'fork',
    });
  }
  return { from: 'checkpoint', ...(input.point === undefined ? {} : { checkpointId: input.point }), ...common };
}

/** `undoHint`: how the parent's files come back after a shared fork changed them; `nextSteps`: the `waypoint show/log` line (default true). */
export function renderFork(report: ForkReport | ForkPreviewReport, options: { undoHint?: string | null; nextSteps?: boolean } = {}): string[] {
  if (report.type === 'preview') {
    const { preview } = report;
    const lines = [
      `Fork of ${report.parentSessionId} from ${preview.from}, ${preview.strategy} workspace, history up to ${preview.at ?? '(empty)'}`,
      `File changes of the parent after the fork point: ${preview.checkpointIds.length}${preview.strategy === 'isolated' && preview.checkpointIds.length ? ' (undone in the new directory only)' : ''}.`,
    ];
    if (preview.files) lines.push(...renderPreview(preview.files));
    lines.push(
      preview.requiresConfirmation ? "It would change the parent's files: run it with --yes, or fork with --isolated." : "The parent's files are not touched.",
    );
    return lines;
  }
  const lines = [
    `${report.created ? 'Forked' : 'Already forked (same command)'}: ${report.session.id} ${JSON.stringify(report.session.title)} (${report.session.kind}, from ${report.from}, ${report.strategy} workspace)`,
  ];
  lines.push(`  history: ${report.at === null ? 'empty' : `inherited up to ${report.at}`}`);
  if (report.materialized) lines.push(...renderMaterialized(report.materialized));
  else lines.push(`  workspace: ${report.workdir ?? '(none)'} (shared with ${report.parentSessionId})`);
  if (report.fileRewind)
    lines.push(
      ...renderFileResult(report.fileRewind, {
        verb: "Changed the parent's directory:",
        ...(options.undoHint === undefined ? {} : { undoHint: options.undoHint }),
      }).map((line) => `  ${line}`),
    );
  if (options.nextSteps ?? true) lines.push(`  see it: waypoint show ${report.session.id}   the family: waypoint log ${report.session.id}`);
  return lines;
}

export const forkCommand = defineCommand({
  name: 'fork',
  synopsis: [
    'fork <session> [latest|<checkpointId>] [--isolated [dir] [--ignored copy|link|omit]] [--yes] [--title <title>]',
    'fork <session> --message <messageId> [--isolated [dir]] [--yes] [--codex]',
    'fork <session> --stable <messageId> [--isolated [dir]]',
    'fork <session> --side <question>',
    'fork <session> … --preview',
    'fork discard <fork-session> [--force]',
  ],
  summary: 'branch a session into a new one: from a checkpoint (default: the latest), a message, a stable reply, or a side chat',
  description: [
    "From a checkpoint: history up to before that change's input, and the change plus every later one undone in the files.",
    'From a message: history up to it; only changes after it undone. --stable and --side never touch files.',
    "Shared workspace (default): a fork that changes the parent's files prints the preview and needs --yes (what it overwrites is kept:",
    '`waypoint redo <parent> <rewindId>` brings it back). --isolated materializes the files at the fork point into a new directory instead:',
    "in a git work tree, a linked work tree (`git worktree add --detach` at the parent's HEAD) with the fork-point changes on top;",
    "it registers in the parent's .git/worktrees. Outside git, a plain copy.",
    "`fork discard <fork-session>` deletes an isolated fork's directory and its work tree registration (the session stays); it refuses while a",
    "tracked file there holds content recorded neither in the store nor in git's HEAD (FORK_HAS_UNRECORDED_CHANGES) unless --force.",
    '--codex (a Codex CLI session, with --message at a prompt): Codex gets a copy of its conversation cut before that prompt, under a new Codex',
    "session id printed with the fork; `codex resume <id>` in the fork's directory continues it. The original Codex session is left as it is.",
  ],
  flags: forkFlags,
  positionals: { min: 1, max: 2 },
  async run(context, args) {
    if (args.positionals[0] === 'discard') {
      const forkId = args.positionals[1];
      if (forkId === undefined) throw new UsageError('name the fork to discard: waypoint fork discard <fork-session>', { command: 'fork' });
      return withWaypoint(context, async (waypoint) => {
        try {
          const report = await discardFork({ waypoint }, { sessionId: forkId, ...(args.flags.force ? { force: true } : {}) });
          return { data: report, text: renderDiscard(report) };
        } catch (error) {
          if (!(error instanceof ForkHasUnrecordedChangesError)) throw error;
          const { sessionId, dir, paths } = error.details as { sessionId: string; dir: string; paths: string[] };
          throw new ForkHasUnrecordedChangesError({ sessionId, dir, paths, hint: 'Copy them elsewhere, or run it again with --force.' });
        }
      });
    }
    if (args.flags.force) throw new UsageError('--force applies to fork discard only', { command: 'fork' });
    if (args.flags.codex && (args.flags.message === undefined || args.flags.preview))
      throw new UsageError("--codex forks Codex's conversation at a prompt: use it with --message <promptMessageId>, without --preview", { command: 'fork' });
    const [sessionId, point] = args.positionals as [string, string | undefined];
    const resolutions = Object.fromEntries(keyValueFlags('resolve', args.flags.resolve, ['merge', 'force'] as const).map(({ key, choice }) => [key, choice]));
    const request = forkRequest(sessionId, {
      cwd: context.cwd,
      ...(point === undefined ? {} : { point }),
      ...(args.flags.message === undefined ? {} : { message: args.flags.message }),
      ...(args.flags.stable === undefined ? {} : { stable: args.flags.stable }),
      ...(args.flags.side === undefined ? {} : { side: args.flags.side }),
      ...(args.flags.isolated === undefined ? {} : { isolated: args.flags.isolated }),
      ...(args.flags.ignored === undefined ? {} : { ignored: args.flags.ignored }),
      ...(args.flags.title === undefined ? {} : { title: args.flags.title }),
      resolutions,
    });
    return withWaypoint(context, async (waypoint) => {
      if (args.flags.preview) {
        const report: ForkPreviewReport = { type: 'preview', parentSessionId: sessionId, preview: await previewFork({ waypoint }, request) };
        return { data: report, text: renderFork(report) };
      }
      // Codex's copy first: a prompt or rollout it refuses stops the fork before anything is written.
      const codex = args.flags.codex ? await forkCodexConversation(waypoint, sessionId, args.flags.message!) : null;
      const progress = request.workspace?.mode === 'isolated' ? context.output.progress('materializing') : null;
      try {
        const report = await forkSession(
          { waypoint },
          { ...request, ...(args.flags.yes ? { confirm: true } : {}) },
          progress ? { onProgress: (done, total) => progress.update(done, total) } : {},
        );
        progress?.done(report.materialized ? `${plural(report.materialized.files, 'file')} written` : undefined);
        if (codex === null) return { data: report, text: renderFork(report) };
        return { data: { ...report, codex }, text: [...renderFork(report), ...renderCodexFork(codex, report.workdir)] };
      } catch (error) {
        progress?.done();
        if (codex !== null) rmSync(codex.rolloutPath, { force: true });
        throw confirmOnCommandLine(context, error);
      }
    });
  },
});

/** Where Codex's copy of the conversation is, and how to go on with it. */
function renderCodexFork(codex: CodexConversationFork, workdir: string | null): string[] {
  return [
    `  Codex conversation: ${codex.codexSessionId}, cut before that prompt (from ${codex.parentCodexSessionId}; ${codex.rolloutPath})`,
    `  continue it: ${workdir ? `cd ${workdir} && ` : ''}codex resume ${codex.codexSessionId}`,
  ];
}

/** What `fork discard` deleted, in words. */
export function renderDiscard(report: DiscardForkResult): string[] {
  const lines = [`Discarded the directory of fork ${report.sessionId}; the session and its history stay.`];
  for (const dir of report.removed) lines.push(`  deleted ${dir}`);
  for (const dir of report.missing) lines.push(`  already gone: ${dir}`);
  if (report.unrecorded.length > 0)
    lines.push(`  deleted with --force, recorded nowhere: ${report.unrecorded.map((path) => path.replace(/^workspace:/, '')).join(', ')}`);
  return lines;
}
