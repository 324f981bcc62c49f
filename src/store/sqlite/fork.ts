import type { Session } from '../../model/index.js';
import { checkForkPoint, commandIdReusedError, FORK_COMMAND_KIND, forkedSessionRow } from '../fork-rows.js';
import type { ForkSessionInput, ForkSessionResult } from '../store.js';
import { insertEntry } from './entries.js';
import { insertMessage } from './messages.js';
import { toSession } from './rows.js';
import { findSessionRow, insertSession, requireMessageRow, requireSession } from './sessions.js';
import type { SqliteContext } from './sqlite-context.js';
import { idEquals } from './id-keys.js';

/**
 * A new session whose head points at an existing message of the parent's tree: ancestors are
 * shared, never copied, so the cost does not depend on history length. Entries and notes for the
 * child are written in the same transaction; a repeated `commandId` returns the first child.
 */
export function forkSession(context: SqliteContext, input: ForkSessionInput): ForkSessionResult {
  const now = Date.now();
  return context.write('fork a session', () => {
    if (input.commandId !== undefined) {
      const fact = context.statement('SELECT kind, result FROM command_facts WHERE command_id = ?').get(input.commandId) as
        | { kind: string; result: string }
        | undefined;
      if (fact) {
        const { sessionId } = JSON.parse(fact.result) as { sessionId: string };
        const existing = fact.kind === FORK_COMMAND_KIND ? findSessionRow(context, sessionId) : undefined;
        if (!existing) {
          throw commandIdReusedError(input.commandId, fact.kind);
        }
        return { session: toSession(existing), created: false };
      }
    }
    const parent = requireSession(context, input.parentSessionId);
    if (input.at !== null) checkForkPoint(parent, input.at, requireMessageRow(context, input.at).tree_id);
    const row = forkedSessionRow(parent, input, now);
    const id = row.id;
    insertSession(context, row);
    insertEntry(context, id, { type: 'title', data: { title: row.title } }, now);
    insertEntry(context, id, { type: 'head-move', data: { from: null, to: input.at, reason: 'fork', branchGeneration: 0, parentSessionId: parent.id } }, now);
    for (const entry of input.entries ?? []) insertEntry(context, id, entry, now);
    let head = input.at;
    for (const message of input.messages ?? []) head = insertMessage(context, row, head, message, now).id;
    if (head !== input.at) context.statement('UPDATE sessions SET head_message_id = ? WHERE id = ?').run(head, id);
    if (input.commandId !== undefined) {
      context
        .statement('INSERT INTO command_facts (command_id, session_id, kind, result, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(input.commandId, parent.id, FORK_COMMAND_KIND, JSON.stringify({ sessionId: id }), now);
    }
    const session: Session = toSession({ ...row, head_message_id: head });
    return { session, created: true };
  });
}

/**
 * Delete a session with its entries, turns, checkpoints and effects, and the messages it wrote that
 * no remaining session of the tree needs (on a path to any of their messages or heads).
 */
export function deleteSession(context: SqliteContext, id: string): void {
  context.write('delete a session', () => {
    const row = requireSession(context, id);
    context.statement('DELETE FROM sessions WHERE id = ?').run(id);
    context
      .statement(
        `WITH RECURSIVE needed(id) AS (
           SELECT id FROM messages WHERE ${idEquals('tree_id', '@tree')} AND session_id != @id
           UNION SELECT head_message_id FROM sessions WHERE tree_id = @tree AND head_message_id IS NOT NULL
           UNION SELECT forked_from_message_id FROM sessions WHERE tree_id = @tree AND forked_from_message_id IS NOT NULL
           UNION SELECT m.parent_id FROM messages m JOIN needed n ON m.id = n.id WHERE m.parent_id IS NOT NULL
         )
         DELETE FROM messages WHERE ${idEquals('session_id', '@id')} AND id NOT IN (SELECT id FROM needed)`,
      )
      .run({ tree: row.tree_id, id });
    context.statement('DELETE FROM command_facts WHERE session_id = ?').run(id);
    // Pins owned by the session (`session:<id>`) or by one of its parts (`session:<id>:<what>`,
    // e.g. the exec capture's scan state) go with it.
    context.statement('DELETE FROM blob_pins WHERE owner = ? OR substr(owner, 1, ?) = ?').run(`session:${id}`, `session:${id}:`.length, `session:${id}:`);
  });
}
