import type { Waypoint } from '../../engine/index.js';
import {
  ancestorAt,
  compactedPositions,
  conversationWindow,
  isCompacted,
  outlineTo,
  subagentLink,
  visibilityOf,
  type SubagentLink,
  type Visibility,
} from '../../history/index.js';
import { NotFoundError, type Checkpoint, type MessageKind, type MessageRole, type MessageStatus, type PartContent, type Session } from '../../model/index.js';
import { integerFlag } from '../args.js';
import { defineCommand, withWaypoint } from '../command.js';
import { conversationView, compactedMarker } from '../render/conversation-view.js';
import { formatTime, partLines, plural, shortPath } from '../render/format.js';

export const showFlags = {
  all: { type: 'boolean', description: 'the whole active path, model-only messages (fork notes, reminders) too' },
  last: { type: 'string', value: 'n', description: 'only the last n messages of the conversation' },
} as const;

export interface ShownMessage {
  id: string;
  sessionId: string;
  parentId: string | null;
  role: MessageRole;
  kind: MessageKind;
  status: MessageStatus;
  visibility: Visibility;
  turnId: string | null;
  depth: number;
  createdAt: number;
  parts: Array<PartContent | null>;
  /** For the tool result of a `subagent` call: the session holding that subagent's transcript. */
  subagentSessionId: string | null;
  /** Replaced by a compaction summary in what the model is sent (still shown to the person). */
  compacted: boolean;
  /** For a compaction summary: how many earlier messages it stands for; null otherwise. */
  summaryOf: number | null;
}

/** Whose tool call a subagent's transcript session belongs to. */
export interface ShownSubagentLink extends SubagentLink {
  /** The parent session's title; null when it was deleted. */
  parentTitle: string | null;
  /** The parent turn's number in its session (1 = first); null when it is not found. */
  turnNumber: number | null;
}

export interface ShowSessionReport {
  type: 'session';
  session: Session;
  /** For a subagent's transcript session: the parent session, turn and tool call that ran it. */
  subagent: ShownSubagentLink | null;
  turns: number;
  /** Messages on the active path (the conversation may show fewer). */
  pathLength: number;
  messages: ShownMessage[];
}

export interface ShowMessageReport {
  type: 'message';
  message: ShownMessage;
  /** Sessions whose active path holds it. */
  onPathOf: string[];
  /** For a user input: the file checkpoints of its turn. */
  checkpoints: Array<Pick<Checkpoint, 'id' | 'seq' | 'op' | 'path' | 'toPath' | 'source' | 'status'>>;
}

export type ShowReport = ShowSessionReport | ShowMessageReport;

/** A session's visible conversation (what the person sees), or one message in full. */
export async function show(waypoint: Waypoint, id: string, options: { all?: boolean; last?: number } = {}): Promise<ShowReport> {
  const { store } = waypoint;
  const session = id.startsWith('msg_') ? null : await store.findSession(id);
  if (session && !options.all && options.last !== undefined && options.last > 0) {
    // The last n messages: read from the path's outline and only those n loaded, not the whole path.
    const window = await conversationWindow(store, session, { limit: options.last });
    const loaded = await store.getMessages(window.entries.map((entry) => entry.message.id));
    return {
      type: 'session',
      session,
      subagent: await subagentOf(waypoint, session),
      turns: (await store.listTurns(session.id)).length,
      pathLength: window.head === null ? 0 : window.head.depth + 1,
      messages: window.entries.map((entry, index) => ({ ...toShown(loaded[index]!), compacted: entry.compacted, summaryOf: entry.summaryOf })),
    };
  }
  if (session) {
    const path = await store.history(session.id);
    const view = conversationView(path, { startAfter: session.kind === 'side_chat' ? session.forkedFromMessageId : null });
    const hidden = compactedPositions(path);
    const summaries = new Map(view.map((entry) => [entry.message.id, entry.summaryOf]));
    const visible = options.all
      ? path.map((message, index) => ({ message, compacted: hidden.has(index), summaryOf: summaries.get(message.id) ?? null }))
      : view;
    const shown = options.last === undefined ? visible : visible.slice(-options.last);
    return {
      type: 'session',
      session,
      subagent: await subagentOf(waypoint, session),
      turns: (await store.listTurns(session.id)).length,
      pathLength: path.length,
      messages: shown.map((entry) => ({ ...toShown(entry.message), compacted: entry.compacted, summaryOf: entry.summaryOf })),
    };
  }
  if (!(await store.findMessage(id))) {
    throw new NotFoundError({
      entity: id.startsWith('msg_') ? 'message' : 'session',
      id,
      hint: 'Give a session id (`waypoint sessions`) or a message id (`waypoint show <session>`).',
    });
  }
  const message = await store.getMessage(id);
  const sessions = await store.listSessions({ treeId: message.treeId });
  const onPathOf: string[] = [];
  for (const candidate of sessions) {
    if (candidate.headMessageId === null) continue;
    const [atDepth] = await store.history(candidate.id, { fromDepth: message.depth, toDepth: message.depth + 1, parts: 'none' });
    if (atDepth?.id === message.id) onPathOf.push(candidate.id);
  }
  const checkpoints = message.role === 'user' ? await store.listCheckpoints(message.sessionId, { anchorMessageId: message.id }) : [];
  return {
    type: 'message',
    message: { ...toShown(message), ...(await compactionOf(waypoint, message)) },
    onPathOf,
    checkpoints: checkpoints.map(({ id: checkpointId, seq, op, path, toPath, source, status }) => ({
      id: checkpointId,
      seq,
      op,
      path,
      toPath,
      source,
      status,
    })),
  };
}

async function subagentOf(waypoint: Waypoint, session: Session): Promise<ShownSubagentLink | null> {
  const link = subagentLink(session);
  if (!link) return null;
  const parent = await waypoint.store.findSession(link.parentSessionId);
  const index = parent ? (await waypoint.store.listTurns(parent.id)).findIndex((turn) => turn.id === link.parentTurnId) : -1;
  return { ...link, parentTitle: parent?.title ?? null, turnNumber: index < 0 ? null : index + 1 };
}

/** The transcript session a `subagent` tool result names (`metadata.subagent.sessionId`), if any. */
function subagentSessionOf(metadata: Record<string, unknown>): string | null {
  const value = metadata.subagent;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const sessionId = (value as { sessionId?: unknown }).sessionId;
  return typeof sessionId === 'string' ? sessionId : null;
}

/** Whether a message is compacted on its session's path, and what a summary stands for. */
async function compactionOf(
  waypoint: Waypoint,
  message: { id: string; sessionId: string; depth: number },
): Promise<Pick<ShownMessage, 'compacted' | 'summaryOf'>> {
  const session = await waypoint.store.getSession(message.sessionId);
  const head = session.headMessageId === null ? null : await outlineTo(waypoint.store, session.headMessageId);
  const node = ancestorAt(head, message.depth);
  // As the session's conversation shows it: on its path, and not a model-only message.
  if (head === null || node === null || node.id !== message.id || node.visibility === 'model') return { compacted: false, summaryOf: null };
  return { compacted: isCompacted(node, head.compaction), summaryOf: node.covers?.plainCount ?? null };
}

function toShown(message: Awaited<ReturnType<Waypoint['store']['getMessage']>>): Omit<ShownMessage, 'compacted' | 'summaryOf'> {
  return {
    id: message.id,
    sessionId: message.sessionId,
    parentId: message.parentId,
    role: message.role,
    kind: message.kind,
    status: message.status,
    visibility: visibilityOf(message),
    turnId: message.turnId,
    depth: message.depth,
    createdAt: message.createdAt,
    parts: message.parts.map((part) => part.content ?? null),
    subagentSessionId: message.role === 'tool' ? subagentSessionOf(message.metadata) : null,
  };
}

function heading(message: ShownMessage): string {
  const tags = [
    message.kind === 'input' || message.kind === 'reply' ? '' : message.kind,
    message.status === 'complete' ? '' : message.status,
    message.visibility === 'all' ? '' : `${message.visibility} only`,
    message.compacted ? 'compacted' : '',
  ].filter(Boolean);
  return `${message.id}  ${message.role}${tags.length ? ` (${tags.join(', ')})` : ''}  ${formatTime(message.createdAt)}`;
}

function body(message: ShownMessage, full: boolean): string[] {
  const lines = partLines(message.parts, { full });
  if (message.subagentSessionId) lines.push(`  (subagent transcript: waypoint show ${message.subagentSessionId})`);
  return lines;
}

export function renderShow(report: ShowReport): string[] {
  if (report.type === 'message') {
    const { message } = report;
    const lines = [
      heading(message),
      `session  ${message.sessionId}${message.turnId ? `  turn ${message.turnId}` : ''}`,
      `parent   ${message.parentId ?? '(root)'}  position #${message.depth + 1}`,
      `on the active path of: ${report.onPathOf.length ? report.onPathOf.join(', ') : 'no session (cut off by a rewind)'}`,
      '',
      ...body(message, true),
    ];
    if (report.checkpoints.length) {
      lines.push('', `file changes of this turn (${report.checkpoints.length}):`);
      for (const checkpoint of report.checkpoints)
        lines.push(
          `  #${checkpoint.seq} ${checkpoint.id}  ${checkpoint.op} ${shortPath(checkpoint.path)}${checkpoint.toPath ? ` → ${shortPath(checkpoint.toPath)}` : ''}`,
        );
    }
    return lines;
  }
  const { session, subagent } = report;
  const lines = [
    `${session.id}  ${subagent ? 'subagent' : session.kind}  ${JSON.stringify(session.title)}`,
    `workdir  ${session.workdir ?? '(none)'}`,
    `head     ${session.headMessageId ?? '(empty history)'}  (${plural(report.pathLength, 'message')} on the path, ${plural(report.turns, 'turn')})`,
  ];
  if (subagent) {
    const parent = `${subagent.parentSessionId}${subagent.parentTitle === null ? ' (deleted)' : ` ${JSON.stringify(subagent.parentTitle)}`}`;
    const turn = subagent.turnNumber === null ? subagent.parentTurnId : `turn ${subagent.turnNumber} (${subagent.parentTurnId})`;
    lines.push(
      `subagent of ${parent}, ${turn}, tool call ${subagent.toolCallId}${subagent.description === null ? '' : `: ${JSON.stringify(subagent.description)}`}`,
    );
  } else if (session.parentSessionId) lines.push(`parent   ${session.parentSessionId}  forked at ${session.forkedFromMessageId ?? 'the start'}`);
  lines.push('');
  if (report.messages.length === 0) lines.push('(no messages to show)');
  for (const message of report.messages) {
    if (message.summaryOf !== null) lines.push(compactedMarker(message.summaryOf));
    lines.push(heading(message), ...body(message, false));
  }
  return lines;
}

export const showCommand = defineCommand({
  name: 'show',
  synopsis: ['show <session> [--all] [--last <n>]', 'show <message>'],
  summary: "a session's conversation with message ids (what the person sees), or one message in full",
  description: [
    'Message ids are what `rewind`, `fork --message` and `fork --stable` take.',
    'After a compaction the whole conversation is still shown: the messages the summary replaced for the model are marked compacted, and the summary stands where it was made.',
    "A subagent's transcript session says whose tool call it belongs to; the parent's tool result names the transcript session.",
  ],
  flags: showFlags,
  positionals: { min: 1, max: 1 },
  async run(context, args) {
    const options = { all: args.flags.all, ...(args.flags.last === undefined ? {} : { last: integerFlag('last', args.flags.last, 0) }) };
    const report = await withWaypoint(context, (waypoint) => show(waypoint, args.positionals[0]!, options));
    return { data: report, text: renderShow(report) };
  },
});
