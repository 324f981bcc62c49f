import { InvalidArgumentError, type Session } from '../../../model/index.js';
import type { DanglingRepair } from '../../../rewind/index.js';
import { listSessionRows, sessionKindLabel } from '../../render/session-rows.js';
import { conversationWindow } from '../../../history/index.js';
import { compactedMarker } from '../../render/conversation-view.js';
import { formatTime, oneLine, plural } from '../../render/format.js';
import { wrapWidth } from '../../render/text-width.js';
import type { ChatContext, SlashCommand } from '../chat-context.js';

/**
 * The last few messages of a session, as a person reads them (after /resume): a compaction summary
 * is marked as one and shown in full, wrapped (the messages it replaced for the model are still
 * there, before it); other messages take one line each.
 */
export async function recentMessages(context: ChatContext, session: Session, count = 6): Promise<string[]> {
  // The newest `count` entries from the path's outline, and only their messages loaded.
  const { store } = context.waypoint;
  const window = await conversationWindow(store, session, { limit: count });
  const loaded = await store.getMessages(window.entries.map((entry) => entry.message.id));
  const lines: string[] = [];
  const { style } = context.io;
  for (const [index, { summaryOf }] of window.entries.entries()) {
    const message = loaded[index]!;
    const text = message.parts
      .map((part) => part.content)
      .filter((content) => content?.type === 'text')
      .map((content) => String(content!.text ?? ''))
      .join(' ');
    if (text.trim() === '') continue;
    if (summaryOf !== null) {
      // The summary in full: it is what the model now knows of everything before it.
      lines.push(style.dim(compactedMarker(summaryOf)), ...wrapWidth(text.trim(), context.io.columns - 4).map((line) => style.dim(`  ${line}`)));
      continue;
    }
    lines.push(`${message.role === 'user' ? '›' : ' '} ${oneLine(text, context.io.columns - 4)}`);
  }
  return lines;
}

/** What resuming repaired (a crash cut a turn short), or nothing. */
export function repairLines(repair: DanglingRepair): string[] {
  if (repair.repairedCalls.length + repair.interruptedTurns.length === 0) return [];
  return [
    `Repaired what a crash left: ${plural(repair.repairedCalls.length, 'tool call')} without a result, ${plural(repair.interruptedTurns.length, 'turn')} marked interrupted.`,
  ];
}

export const sessionsCommand: SlashCommand = {
  name: 'sessions',
  usage: '/sessions',
  summary: 'list the sessions in this store',
  whileBusy: true,
  withoutSession: true,
  async run(context) {
    const rows = await listSessionRows(context.waypoint);
    for (const row of rows) {
      const mark = row.id === context.sessionId ? '*' : ' ';
      context.io.print(
        `${mark} ${row.id}  ${sessionKindLabel(row).padEnd(9)} ${JSON.stringify(oneLine(row.title, 40))}  ${plural(row.turns, 'turn')}  ${formatTime(row.createdAt)}`,
      );
    }
    context.io.print(context.io.style.dim('/resume <id> switches to one.'));
  },
};

/** `/resume [id]`: switch to another session (a picker without an id); a crashed turn there is repaired first. */
export const resumeCommand: SlashCommand = {
  name: 'resume',
  usage: '/resume [sessionId]',
  summary: 'switch to another session (no id: pick from the list)',
  withoutSession: true,
  async run(context, args) {
    let id = args.trim();
    if (id === '') {
      const rows = (await listSessionRows(context.waypoint)).reverse();
      const picked = await context.io.pick({
        title: 'Resume which session?',
        items: rows.map((row) => ({
          label: `${row.title}${row.id === context.sessionId ? ' (current)' : ''}`,
          detail: `${row.id} · ${sessionKindLabel(row)} · ${plural(row.turns, 'turn')}`,
          value: row.id,
        })),
        empty: 'No sessions in this store.',
      });
      if (picked === null) return;
      id = picked;
    }
    const { session, repair } = await context.runtime.resumeSession(id);
    context.switchTo(session, `Now in ${session.id} "${session.title}".`);
    for (const line of repairLines(repair)) context.io.print(context.io.style.warn(line));
    for (const line of await recentMessages(context, session)) context.io.print(line);
  },
};

export const titleCommand: SlashCommand = {
  name: 'title',
  usage: '/title <text>',
  summary: "set this session's title",
  async run(context, args) {
    const title = args.trim();
    if (title === '') {
      const session = await context.session();
      context.io.print(`Title: ${JSON.stringify(session.title)}. Change it with /title <text>.`);
      return;
    }
    if (title.length > 500) throw new InvalidArgumentError({ parameter: 'title', value: title.slice(0, 40), reason: 'a title is at most 500 characters.' });
    const session = await context.waypoint.store.setTitle(context.sessionId, title);
    context.io.print(`Title set: ${JSON.stringify(session.title)}.`);
  },
};
