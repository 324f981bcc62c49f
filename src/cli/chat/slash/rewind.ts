import { displayPath, listRecentCheckpoints } from '../../../checkpoint/index.js';
import { listRewindTargets, type RewindTarget } from '../../../history/index.js';
import { WaypointError } from '../../../model/index.js';
import { UsageError } from '../../cli-errors.js';
import { parseRewindForm, renderRewind, rewindRequest, type RewindReport } from '../../commands/rewind.js';
import type { RewindStatusReport } from '../../commands/rewind-status.js';
import type { RewindRequest } from '../../../operations/index.js';
import { formatTime, oneLine, plural, shortPath, table } from '../../render/format.js';
import type { ChatContext, SlashCommand } from '../chat-context.js';
import type { PickItem } from '../chat-io.js';
import { CHAT_UNDO_HINT, checkedRewind } from './checked-rewind.js';

type Choice = { kind: 'input'; target: RewindTarget } | { kind: 'checkpoint'; id: string; label: string };

/** `/rewind status`: the latest checkpoint, the inputs to rewind to (with ids), what /redo would undo, the forms. */
export function chatRewindStatus(report: RewindStatusReport): string[] {
  const lines: string[] = [];
  const latest = report.latestCheckpoint;
  if (latest)
    lines.push(
      `Latest checkpoint: ${latest.id}  ${latest.op} ${displayPath(latest.path)}  by ${latest.source === 'exec' ? 'a shell command' : (latest.toolName ?? latest.source)}  (/rewind latest restores it)`,
    );
  else lines.push(report.checkpointCount === 0 ? 'No file checkpoints yet.' : 'Every file change is already rewound.');
  lines.push(report.targets.length ? 'Inputs you can rewind to (oldest first):' : 'No user input to rewind to.');
  lines.push(
    ...table(
      report.targets.map((target) => [
        `  ${target.messageId}`,
        JSON.stringify(oneLine(target.text, 50)),
        target.fileChanges ? plural(target.fileChanges, 'file change') : '',
        target.compacted ? '(compacted)' : '',
      ]),
    ),
  );
  if (report.redo.conversation || report.redo.fileRewinds.length)
    lines.push(
      `/redo can undo: ${[report.redo.conversation ? 'the last conversation rewind' : '', report.redo.fileRewinds.length ? plural(report.redo.fileRewinds.length, 'file rewind') : ''].filter(Boolean).join(' and ')}`,
    );
  lines.push(
    'Forms: /rewind (a list to pick from) · latest · <checkpointId> · conversation <messageId> · code <messageId> · both <messageId> · cascade conversation|code|both <messageId>',
  );
  return lines;
}

/** After a rewind: the lines, `/redo` instead of the shell command, the draft back in the prompt, the redo stack. */
function reportRewind(context: ChatContext, report: RewindReport): void {
  for (const line of renderRewind(report, { undoHint: CHAT_UNDO_HINT, conversationHint: null, showDraft: false })) context.io.print(line);
  const rewindId = report.files?.rewindId ?? null;
  if (report.conversation) {
    context.redoStack.push(rewindId ? { kind: 'both', sessionId: report.sessionId, rewindId } : { kind: 'conversation', sessionId: report.sessionId });
    if (context.io.interactive)
      context.io.print(context.io.style.dim('Your input is back in the prompt: edit it and press Enter to send it again, or /redo to undo the rewind.'));
    context.io.setDraft(report.conversation.draft);
  } else if (rewindId) {
    context.redoStack.push({ kind: 'files', sessionId: report.sessionId, rewindId });
  }
}

/** The picker: the session's inputs (newest first, selected) and its latest 50 checkpoints. */
async function pickTarget(context: ChatContext): Promise<Choice | null> {
  const { store } = context.waypoint;
  const [targets, checkpoints, all] = await Promise.all([
    listRewindTargets(store, context.sessionId),
    listRecentCheckpoints(store, context.sessionId, { limit: 50 }),
    store.listCheckpoints(context.sessionId),
  ]);
  const changes = new Map<string, number>();
  for (const checkpoint of all) if (checkpoint.anchorMessageId) changes.set(checkpoint.anchorMessageId, (changes.get(checkpoint.anchorMessageId) ?? 0) + 1);
  const items: Array<PickItem<Choice>> = [
    ...[...targets].reverse().map((target) => ({
      label: `› ${oneLine(target.text, 60)}`,
      detail: [
        changes.get(target.messageId) ? plural(changes.get(target.messageId)!, 'file change') : '',
        target.compacted ? 'compacted' : '',
        formatTime(target.createdAt).slice(11),
      ]
        .filter(Boolean)
        .join(' · '),
      value: { kind: 'input' as const, target },
    })),
    ...checkpoints.map((checkpoint) => {
      const label = `${checkpoint.op} ${checkpoint.displayPath}${checkpoint.displayToPath ? ` → ${checkpoint.displayToPath}` : ''}`;
      return {
        label: `  file: ${label}`,
        detail: `${checkpoint.id} · by ${checkpoint.source === 'exec' ? 'a shell command' : (checkpoint.toolName ?? checkpoint.source)}`,
        value: { kind: 'checkpoint' as const, id: checkpoint.id, label },
      };
    }),
  ];
  return context.io.pick({
    title: 'Rewind to before which input, or undo which file change?',
    items,
    empty: 'Nothing to rewind yet: this session has no input and no file change.',
  });
}

async function rewindFromPicker(context: ChatContext): Promise<void> {
  const { io, runtime, sessionId } = context;
  const choice = await pickTarget(context);
  if (choice === null) {
    io.print(io.style.dim('Rewind cancelled; nothing was changed.'));
    return;
  }
  if (choice.kind === 'checkpoint')
    return directRewind(context, { sessionId, kind: 'checkpoint', checkpointId: choice.id }, `Put ${choice.label} back as it was before this change?`);
  const { target } = choice;
  const scope = await io.pick({
    title: `Rewind to before "${oneLine(target.text, 50)}"`,
    items: [
      { label: 'Conversation and code: the files go back too', value: 'both' as const },
      { label: 'Conversation only: the files stay as they are', value: 'conversation' as const },
      { label: 'Code only: the conversation stays', value: 'workspace' as const },
      { label: 'Cancel', value: null },
    ],
  });
  if (scope === null) return void io.print(io.style.dim('Rewind cancelled; nothing was changed.'));
  if (scope === 'conversation') return reportRewind(context, await runtime.rewind({ sessionId, messageId: target.messageId, scope }));
  const outcome = await checkedRewind(context, {
    preview: (choices) => runtime.previewRewind({ sessionId, messageId: target.messageId, ...choices }),
    apply: (preview) => runtime.applyRewind({ sessionId, preview, scope }),
  });
  if (outcome.kind === 'nothing') {
    if (scope === 'workspace') return void io.print('No file changes from that input on: nothing to restore.');
    io.print('No file changes from that input on; rewinding the conversation.');
    return reportRewind(context, await runtime.rewind({ sessionId, messageId: target.messageId, scope: 'conversation', cascade: true }));
  }
  if (outcome.kind === 'applied') reportRewind(context, outcome.result);
}

/** `/rewind` in every form: status, latest, a checkpoint, conversation, code, both, cascade. */
export const rewindCommand: SlashCommand = {
  name: 'rewind',
  usage: '/rewind [status|latest|<checkpointId>|conversation <id>|code <id>|both <id>|cascade <scope> <id>]',
  summary: 'go back: no argument opens a list of your inputs and file changes to pick from',
  async run(context, args) {
    const tokens = args.split(/\s+/).filter(Boolean);
    if (tokens.length === 0) return rewindFromPicker(context);
    let form;
    try {
      form = parseRewindForm(tokens);
    } catch (error) {
      if (error instanceof UsageError) throw new UsageChatError(String(error.details.reason), '/rewind help');
      throw error;
    }
    if (form.kind === 'status') {
      for (const line of chatRewindStatus(await context.runtime.rewindStatus(context.sessionId))) context.io.print(line);
      return;
    }
    await directRewind(context, rewindRequest(context.sessionId, form));
  },
};

/**
 * A direct rewind from the chat: planned first (the operation's preview), and when it would
 * overwrite files changed since the agent wrote them, they are named and the person chooses;
 * only the files confirmed may be overwritten (one changed meanwhile is refused). `question`, if
 * given, is asked even when nothing changed (a file entry picked from the list).
 */
async function directRewind(context: ChatContext, request: RewindRequest, question?: string): Promise<void> {
  const { io, runtime } = context;
  let force: string[] = [];
  if (request.kind !== 'message' || request.scope !== 'conversation') {
    const changed = (await runtime.previewDirectRewind(request)).files?.changed ?? [];
    if (changed.length > 0 || question !== undefined) {
      const names = changed.map((file) => shortPath(file.path)).join(', ');
      const ok = await io.pick({
        title: changed.length
          ? `${names} changed since the agent wrote ${changed.length === 1 ? 'it' : 'them'}. Overwrite with the earlier version? (what is there now is kept; /redo brings it back)`
          : question!,
        items: [
          { label: changed.length ? 'Yes, overwrite' : 'Yes, restore the file', value: true },
          { label: 'No', value: false },
        ],
        ...(changed.length ? { initial: 1 } : {}),
      });
      if (!ok) return void io.print(io.style.dim('Rewind cancelled; nothing was changed.'));
      force = changed.map((file) => file.path);
    }
  }
  reportRewind(context, await runtime.rewind({ ...request, force }));
}

/** A malformed slash command: what is wrong and where to read more (code USAGE, like the CLI's). */
export class UsageChatError extends WaypointError {
  constructor(reason: string, help: string) {
    super({ code: 'USAGE', message: `${reason}. Type ${help} for the forms.`, details: { reason }, exitCode: 2, httpStatus: 400 });
  }
}
