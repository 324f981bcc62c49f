import type { Waypoint } from '../../engine/index.js';
import {
  applyRewind,
  previewDirectRewind,
  previewRewind,
  rewind,
  rewindStatus,
  RewindOverwritesChangesError,
  type RewindForm as OperationRewindForm,
  type RewindRequest,
  type RewindResult,
} from '../../operations/index.js';
import type { FileResolution, FileRewindPreview } from '../../rewind/index.js';
import { keyValueFlags } from '../args.js';
import { UsageError } from '../cli-errors.js';
import { defineCommand, withWaypoint, type CommandContext } from '../command.js';
import { renderChangedFiles, renderDirectPreview } from '../render/direct-preview-render.js';
import { renderFileResult, renderPreview } from '../render/rewind-render.js';
import { restoreKeptAside } from './rewind-restore.js';
import { renderRewindStatus } from './rewind-status.js';

export const rewindFlags = {
  preview: { type: 'boolean', description: 'show what this exact command would do (the conversation, each file and its status); change nothing' },
  force: {
    type: 'boolean',
    description: 'direct forms: overwrite files changed since the agent wrote them without asking (what they hold is kept; `waypoint redo` brings it back)',
  },
  apply: { type: 'boolean', description: 'rewind by message through the checked preview: refused while a file changed since the agent, unless resolved' },
  resolve: {
    type: 'string',
    value: 'path=merge|force|skip',
    multiple: true,
    description: 'a choice for one file (repeatable): merge or force past a conflict, or skip (leave it as it is); implies --apply unless --preview',
  },
  'include-shell': { type: 'boolean', description: 'with --preview/--apply: undo changes made by shell commands too' },
} as const;

/** A `/rewind` form as typed: `status`, or one of the operation's forms. */
export type RewindForm = { kind: 'status' } | Exclude<OperationRewindForm, { kind: 'turn' }>;

const SCOPES: Record<string, 'conversation' | 'workspace' | 'both'> = {
  conversation: 'conversation',
  message: 'conversation',
  code: 'workspace',
  workspace: 'workspace',
  both: 'both',
};

/** `status|help|-h`, `latest`, `<checkpointId>`, `conversation|message <id>`, `code|workspace <id>`, `both <id>`, `cascade <scope> <id>`. */
export function parseRewindForm(tokens: readonly string[]): RewindForm {
  const [word, ...rest] = tokens;
  const expect = (count: number, shape: string) => {
    if (rest.length !== count)
      throw new UsageError(`\`rewind <session> ${shape}\` ${rest.length < count ? 'is missing an argument' : 'has too many arguments'}`, { command: 'rewind' });
  };
  if (word === undefined || word === 'status' || word === 'help' || word === '-h') {
    if (word !== undefined) expect(0, word);
    return { kind: 'status' };
  }
  if (word === 'latest') {
    expect(0, 'latest');
    return { kind: 'latest' };
  }
  if (word === 'cascade') {
    expect(2, 'cascade <scope> <messageId>');
    const scope = SCOPES[rest[0]!];
    if (!scope) throw new UsageError(`"${rest[0]}" is not a rewind scope; use conversation, code or both`, { command: 'rewind' });
    return { kind: 'message', scope, cascade: true, messageId: rest[1]! };
  }
  const scope = SCOPES[word];
  if (scope) {
    expect(1, `${word} <messageId>`);
    return { kind: 'message', scope, cascade: false, messageId: rest[0]! };
  }
  expect(0, '<checkpointId>');
  if (word.startsWith('msg_'))
    throw new UsageError(`"${word}" is a message; say what to rewind: \`conversation ${word}\`, \`code ${word}\` or \`both ${word}\``, { command: 'rewind' });
  return { kind: 'checkpoint', checkpointId: word };
}

/** What a rewind did (the operation's result). */
export type RewindReport = RewindResult;

export interface RewindPreviewReport {
  type: 'preview';
  sessionId: string;
  form: RewindForm;
  preview: FileRewindPreview;
}

/** The operation's request for a parsed direct form (`force`: files changed since the agent may be overwritten). */
export function rewindRequest(sessionId: string, form: Exclude<RewindForm, { kind: 'status' }>, force: boolean | string[] = false): RewindRequest {
  if (form.kind === 'latest') return { sessionId, kind: 'latest', force };
  if (form.kind === 'checkpoint') return { sessionId, kind: 'checkpoint', checkpointId: form.checkpointId, force };
  return { sessionId, kind: 'message', messageId: form.messageId, scope: form.scope, cascade: form.cascade, force };
}

/** The command line of a direct form, for the preview's last line. */
function formCommand(sessionId: string, form: Exclude<RewindForm, { kind: 'status' }>): string {
  const scope = (scope: string) => (scope === 'workspace' ? 'code' : scope);
  if (form.kind === 'latest') return `waypoint rewind ${sessionId} latest`;
  if (form.kind === 'checkpoint') return `waypoint rewind ${sessionId} ${form.checkpointId}`;
  return `waypoint rewind ${sessionId} ${form.cascade ? `cascade ${scope(form.scope)}` : scope(form.scope)} ${form.messageId}`;
}

/**
 * A direct rewind. When it would overwrite files changed since the agent wrote them: on a
 * terminal they are listed and the person is asked (only the files confirmed may be overwritten;
 * one changed meanwhile refuses); elsewhere the operation's refusal stands, with `--force` as the
 * way on. Null when the person said no.
 */
async function rewindDirect(context: CommandContext, waypoint: Waypoint, request: RewindRequest): Promise<RewindReport | null> {
  let force = request.force ?? false;
  const touchesFiles = request.kind !== 'message' || request.scope !== 'conversation';
  if (force !== true && touchesFiles && context.confirm) {
    const changed = (await previewDirectRewind({ waypoint }, request)).files?.changed ?? [];
    if (changed.length > 0) {
      for (const line of renderChangedFiles(changed)) context.output.note(line);
      if (!(await context.confirm(`Overwrite ${changed.length === 1 ? 'it' : 'them'}?`))) return null;
      force = changed.map((file) => file.path);
    }
  }
  try {
    return await rewind({ waypoint }, { ...request, force });
  } catch (error) {
    if (!(error instanceof RewindOverwritesChangesError)) throw error;
    if (!context.json) for (const line of renderChangedFiles(error.files)) context.output.print(line);
    throw new RewindOverwritesChangesError({
      sessionId: request.sessionId,
      files: [...error.files],
      hint: 'Run it again on a terminal to be asked, or with --force to overwrite them (what they hold now is kept; `waypoint redo` brings it back); --preview shows the plan.',
    });
  }
}

interface CheckedChoices {
  resolutions: Record<string, FileResolution>;
  includeShellChanges: boolean;
}

/** Preview, show it when it cannot apply, then apply it: refused while a file changed since the agent, unless resolved. */
async function rewindChecked(
  context: CommandContext,
  waypoint: Waypoint,
  sessionId: string,
  form: Extract<RewindForm, { kind: 'message' }>,
  choices: CheckedChoices,
): Promise<RewindReport> {
  const preview = await previewRewind({ waypoint }, { sessionId, messageId: form.messageId, ...choices });
  if (!preview.canApply && !context.json) for (const line of renderPreview(preview)) context.output.print(line);
  return applyRewind({ waypoint }, { sessionId, preview, scope: form.scope === 'both' ? 'both' : 'workspace' });
}

/** How the lines say a rewind is undone: the CLI's commands by default; the chat says `/redo` and puts the draft in its prompt. */
export interface RewindRenderOptions {
  undoHint?: string | null;
  /** After a conversation rewind: the redo line (null: none) and whether to print the draft. */
  conversationHint?: string | null;
  showDraft?: boolean;
}

export function renderRewind(report: RewindReport | RewindPreviewReport, options: RewindRenderOptions = {}): string[] {
  if (report.type === 'preview') {
    const form = report.form as Extract<RewindForm, { kind: 'message' }>;
    const { preview } = report;
    // The command that applies this preview: the choices made so far, plus merge wherever it applies cleanly.
    const choices = { ...preview.resolutions };
    for (const file of preview.files) if (file.resolution === null && file.mergeAvailable) choices[file.path] = 'merge';
    const flags = Object.entries(choices).map(([path, choice]) => ` --resolve ${path.replace(/^workspace:/, '')}=${choice}`);
    const scope = form.scope === 'both' ? 'both' : 'code';
    return renderPreview(preview, {
      nextStep: `Apply with: waypoint rewind ${report.sessionId} ${scope} ${form.messageId} --apply${flags.join('')}${preview.includeShellChanges ? ' --include-shell' : ''}`,
    });
  }
  const lines: string[] = [];
  if (report.files) lines.push(...renderFileResult(report.files, options.undoHint === undefined ? {} : { undoHint: options.undoHint }));
  if (report.conversation) {
    lines.push(
      `Conversation rewound to before ${report.conversation.targetMessageId}; the head is now ${report.conversation.headMessageId ?? '(empty history)'}.`,
    );
    if (options.showDraft ?? true) lines.push(`Your input, to edit and send again: ${JSON.stringify(report.conversation.draft)}`);
    const hint = options.conversationHint === undefined ? `Undo the conversation rewind with: waypoint redo ${report.sessionId}` : options.conversationHint;
    if (hint !== null) lines.push(hint);
  }
  return lines;
}

export const rewindCommand = defineCommand({
  name: 'rewind',
  synopsis: [
    'rewind <session> [status|help|-h]',
    'rewind <session> latest [--preview] [--force]',
    'rewind <session> <checkpointId> [--preview] [--force]',
    'rewind <session> conversation|message <messageId> [--preview]',
    'rewind <session> code|workspace <messageId> [--preview] [--force]',
    'rewind <session> both <messageId> [--preview] [--force]',
    'rewind <session> code|workspace|both <messageId> --apply [--preview] [--resolve <path>=merge|force|skip]… [--include-shell]',
    'rewind <session> cascade conversation|code|both <messageId> [--preview] [--force | --apply …]',
    'rewind <session> restore <rewindId|hash> [path]',
  ],
  summary: 'undo the conversation, the files, or both',
  description: [
    'status: the latest checkpoint, the user inputs you can rewind to, and what can be redone.',
    "latest / <checkpointId>: put that checkpoint's file back as it was before the change.",
    'conversation <id>: move the conversation back to just before that user input (a reply maps to its input); the input is printed to edit.',
    "code <id>: restore the latest file change of that input's turn. both <id>: the files, then the conversation, in one commit.",
    'cascade <scope> <id>: every file change from that input on, newest first; the conversation too when the scope includes it.',
    'A direct form that would overwrite a file changed since the agent wrote it lists the files and asks (y/N) on a terminal; elsewhere',
    'it is refused with REWIND_OVERWRITES_CHANGES (exit code 4) unless --force. What is overwritten is kept: `waypoint redo` brings it back.',
    '--preview shows what the same command does, from the same plan (with --force: as forced), and changes nothing.',
    '--apply works on every change from the message on, checking each file against what the agent left: a file changed since is',
    "external_modified and blocks, unless resolved with --resolve <path>=merge (reverse-apply the agent's own change, keeping your edits; shown",
    'in the preview when it applies cleanly) or =force (overwrite; the current content is kept for redo). --resolve <path>=skip leaves a file',
    'as it is (its changes stay un-rewound, and a redo leaves it too); the rest is rewound.',
    'restore <rewindId|hash> [path]: put back a save a refused rewind kept aside (listed by status); what the path holds is kept for redo.',
  ],
  flags: rewindFlags,
  positionals: { min: 1, max: 4 },
  literal: ['-h'],
  async run(context, args) {
    const [sessionId, ...tokens] = args.positionals as [string, ...string[]];
    if (tokens[0] === 'restore') {
      if (args.flags.preview || args.flags.force || args.flags.apply || args.flags.resolve.length > 0 || args.flags['include-shell'])
        throw new UsageError('restore takes no flags but --json', { command: 'rewind' });
      return withWaypoint(context, (waypoint) => restoreKeptAside(waypoint, sessionId, tokens.slice(1)));
    }
    const form = parseRewindForm(tokens);
    const resolutions = Object.fromEntries(
      keyValueFlags('resolve', args.flags.resolve, ['merge', 'force', 'skip'] as const).map(({ key, choice }) => [key, choice]),
    );
    const checked = args.flags.apply || Object.keys(resolutions).length > 0 || args.flags['include-shell'];
    if (checked && (form.kind !== 'message' || form.scope === 'conversation')) {
      throw new UsageError('--apply, --resolve and --include-shell work with a file rewind by message (code, both, cascade code|both)', {
        command: 'rewind',
      });
    }
    if (args.flags.force && checked)
      throw new UsageError('--force is for the direct forms; with --apply choose per file: --resolve <path>=force', { command: 'rewind' });
    if ((args.flags.preview || args.flags.force) && form.kind === 'status')
      throw new UsageError('--preview and --force go with a rewind form, not status', { command: 'rewind' });
    return withWaypoint(context, async (waypoint) => {
      if (form.kind === 'status') {
        const status = await rewindStatus({ waypoint }, { sessionId });
        return { data: status, text: renderRewindStatus(status) };
      }
      const choices: CheckedChoices = { resolutions, includeShellChanges: args.flags['include-shell'] };
      if (form.kind === 'message' && checked && args.flags.preview) {
        const report: RewindPreviewReport = {
          type: 'preview',
          sessionId,
          form,
          preview: await previewRewind({ waypoint }, { sessionId, messageId: form.messageId, ...choices }),
        };
        return { data: report, text: renderRewind(report) };
      }
      if (form.kind === 'message' && checked) {
        const report = await rewindChecked(context, waypoint, sessionId, form, choices);
        return { data: report, text: renderRewind(report) };
      }
      const request = rewindRequest(sessionId, form, args.flags.force);
      if (args.flags.preview) {
        const preview = await previewDirectRewind({ waypoint }, request);
        return { data: preview, text: renderDirectPreview(preview, formCommand(sessionId, form)) };
      }
      const report = await rewindDirect(context, waypoint, request);
      if (report === null) return { data: { type: 'cancelled', sessionId }, text: ['Rewind cancelled; nothing was changed.'] };
      return { data: report, text: renderRewind(report) };
    });
  },
});
