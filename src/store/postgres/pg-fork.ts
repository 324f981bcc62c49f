import { checkForkPoint, commandIdReusedError, FORK_COMMAND_KIND, forkedSessionRow } from '../fork-rows.js';
import { toSession } from '../sqlite/rows.js';
import type { ForkSessionInput, ForkSessionResult } from '../store.js';
import { shareRootsLock, type PgContext } from './pg-context.js';
import { insertMessage } from './pg-messages.js';
import { findSessionRow, insertEntry, insertSession, NOTIFY_SQL, requireMessageRow, requireSession } from './pg-sessions.js';

/**
 * A new session whose head points at an existing message of the parent's tree (ancestors shared,
 * never copied). A repeated `commandId` returns the first child, from any machine: the command id
 * is locked (an advisory lock on its hash) before it is looked up, so two machines forking with
 * one id at once make one child.
 */
export async function forkSession(context: PgContext, input: ForkSessionInput): Promise<ForkSessionResult> {
  const now = Date.now();
  return context.write('fork a session', async (sql) => {
    if (input.commandId !== undefined) {
      await sql.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`waypoint:${context.schema}:command:${input.commandId}`]);
      const fact = (await sql.query<{ kind: string; result: string }>('SELECT kind, result FROM command_facts WHERE command_id = $1', [input.commandId]))
        .rows[0];
      if (fact) {
        const { sessionId } = JSON.parse(fact.result) as { sessionId: string };
        const existing = fact.kind === FORK_COMMAND_KIND ? await findSessionRow(sql, sessionId) : undefined;
        if (!existing) {
          throw commandIdReusedError(input.commandId, fact.kind);
        }
        return { session: toSession(existing), created: false };
      }
    }
    const parent = await requireSession(sql, input.parentSessionId);
    if (input.at !== null) checkForkPoint(parent, input.at, (await requireMessageRow(sql, input.at)).tree_id);
    const row = forkedSessionRow(parent, input, now);
    const id = row.id;
    await insertSession(sql, row);
    // The parent's family changed (its log shows the child) and the child is new: both announced on commit.
    for (const changed of [parent.id, id]) await sql.query(`SELECT ${NOTIFY_SQL}`, [changed]);
    await insertEntry(sql, id, { type: 'title', data: { title: row.title } }, now);
    await insertEntry(sql, id, { type: 'head-move', data: { from: null, to: input.at, reason: 'fork', branchGeneration: 0, parentSessionId: parent.id } }, now);
    for (const entry of input.entries ?? []) await insertEntry(sql, id, entry, now);
    let head = input.at;
    for (const message of input.messages ?? []) head = (await insertMessage(sql, context.schema, row, head, message, now)).id;
    if (head !== input.at) await sql.query('UPDATE sessions SET head_message_id = $1 WHERE id = $2', [head, id]);
    if (input.commandId !== undefined) {
      await sql.query('INSERT INTO command_facts (command_id, session_id, kind, result, created_at) VALUES ($1, $2, $3, $4, $5)', [
        input.commandId,
        parent.id,
        FORK_COMMAND_KIND,
        JSON.stringify({ sessionId: id }),
        now,
      ]);
    }
    return { session: toSession({ ...row, head_message_id: head }), created: true };
  });
}

/**
 * Deletes a session with its entries, turns, checkpoints and effects, and the messages it wrote
 * that no remaining session of the tree needs. Every session of the tree is locked first (in id
 * order), so no append elsewhere in the tree builds on a message while it is judged unneeded.
 */
export async function deleteSession(context: PgContext, id: string): Promise<void> {
  await context.write('delete a session', async (sql) => {
    const row = await requireSession(sql, id);
    await sql.query('SELECT id FROM sessions WHERE tree_id = $1 ORDER BY id COLLATE "C" FOR UPDATE', [row.tree_id]);
    await shareRootsLock(sql, context.schema);
    await sql.query('DELETE FROM sessions WHERE id = $1', [id]);
    await sql.query(`SELECT ${NOTIFY_SQL}`, [id]);
    await sql.query('DELETE FROM turns WHERE user_message_id IN (SELECT id FROM messages WHERE session_id = $1)', [id]);
    await sql.query(
      `WITH RECURSIVE needed(id) AS (
         SELECT id FROM messages WHERE tree_id = $1 AND session_id <> $2
         UNION SELECT head_message_id FROM sessions WHERE tree_id = $1 AND head_message_id IS NOT NULL
         UNION SELECT forked_from_message_id FROM sessions WHERE tree_id = $1 AND forked_from_message_id IS NOT NULL
         UNION SELECT m.parent_id FROM messages m JOIN needed n ON m.id = n.id WHERE m.parent_id IS NOT NULL
       )
       DELETE FROM messages WHERE session_id = $2 AND id NOT IN (SELECT id FROM needed WHERE id IS NOT NULL)`,
      [row.tree_id, id],
    );
    await sql.query('DELETE FROM command_facts WHERE session_id = $1', [id]);
    await sql.query('DELETE FROM blob_pins WHERE owner = $1 OR starts_with(owner, $2)', [`session:${id}`, `session:${id}:`]);
  });
}
