/**
 * Narrow indexes on text ids. An id is about 30 characters (`newId`: a kind prefix, the time, a
 * counter, then 12 random characters), and an index entry on it carries all of them; the
 * non-unique lookups of messages by tree and by session index only the id's last
 * `ID_KEY_CHARS` characters instead (40 random bits for a `newId` id), and a query names both the
 * key, which finds the index entries, and the whole id, which keeps only the rows that match. Two
 * ids that share their last characters cost an extra row read, never a wrong row. Unique
 * constraints keep whole ids.
 */
export const ID_KEY_CHARS = 8;

/** SQL of the index key of a text id column or parameter. */
export function idKey(expression: string): string {
  return `substr(${expression}, -${ID_KEY_CHARS})`;
}

/**
 * SQL condition: `column` equals `parameter`, found through the column's narrow index. The
 * parameter must be bound, not a literal: SQLite would put a literal's value into the key
 * expression, which then no longer matches the index.
 */
export function idEquals(column: string, parameter: string): string {
  return `${idKey(column)} = ${idKey(parameter)} AND ${column} = ${parameter}`;
}

/**
 * Migration 9. The indexes of messages by tree and by session index the ids' narrow keys. The
 * indexes of checkpoints by turn and by anchor message go: `listCheckpoints` always names the
 * session, and SQLite reads the session's checkpoints in order through the (session, seq) index
 * rather than through either of them (so it did before), keeping those of the turn or anchor; the
 * index of messages by turn goes too (no query used it).
 */
export const ID_KEYS_V9_MIGRATION_SQL = `
DROP INDEX checkpoints_turn;
DROP INDEX checkpoints_anchor;
DROP INDEX messages_tree;
DROP INDEX messages_session;
DROP INDEX messages_turn;
CREATE INDEX messages_tree_key ON messages(${idKey('tree_id')});
CREATE INDEX messages_session_key ON messages(${idKey('session_id')});
`;
