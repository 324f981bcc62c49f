import type { JsonObject, MessageWithParts, Part, PartContent } from '../../model/index.js';
import type { HistoryOptions } from '../store.js';
import type { MessageRow } from './rows.js';
import { requireMessageRow } from './sessions.js';
import type { SqliteContext } from './sqlite-context.js';

/**
 * History reads: the path from the root to a message, oldest first (ARCHITECTURE.md, "History
 * reads"). Two steps:
 *
 * 1. **Which rows.** The path is cut into runs of consecutive seqs: a message appended right after
 *    its parent has `parent_seq = seq - 1`, so a conversation appended without interruption is one
 *    run, and a rewind, a fork or another session writing in between starts a new one. Each run
 *    costs one rowid range scan of `messages`, down from the run's top to the first row whose
 *    parent is not the row before it (0.4 ms for a 10k run, where the recursive CTE spends 3.7 ms
 *    on the same walk). When runs turn out short (sessions appending in turn), the rest of the
 *    path is walked link by link with the CTE instead.
 * 2. **The rows.** Read in chunks (a seq range, or a seq list for short runs), each row as one
 *    JSON text that SQLite builds, `[id, parent_id, …, part_meta, parts]`, parsed with one
 *    `JSON.parse`. better-sqlite3 converts each column value of each row through its C++ API, so
 *    one value per row instead of a dozen halves the read; chunks let each chunk's texts die
 *    young instead of being copied by the garbage collector while the rest is read.
 *
 * Rows with payloads are never sorted (an `ORDER BY` would copy every payload through SQLite's
 * sorter): each row is placed at its depth, which orders the path whatever order rows arrive in.
 */
export function readPath(context: SqliteContext, headId: string | null, options: HistoryOptions): MessageWithParts[] {
  if (headId === null) return [];
  return context.read('read history', () => {
    const head = requireMessageRow(context, headId);
    let fromDepth = Math.max(0, options.fromDepth ?? 0);
    const toDepth = Math.min(options.toDepth ?? Number.MAX_SAFE_INTEGER, head.depth + 1);
    if (options.last !== undefined) fromDepth = Math.max(fromDepth, toDepth - options.last);
    if (fromDepth >= toDepth) return [];
    const runs = pathRuns(context, head, fromDepth, toDepth);
    const full = (options.parts ?? 'full') === 'full';
    const roles = options.roles ? JSON.stringify(options.roles) : null;
    const messages = new Array<MessageWithParts>(toDepth - fromDepth);
    const place = (json: string): void => {
      const message = messageOf(JSON.parse(json) as JsonRow, head.tree_id, full);
      messages[message.depth - fromDepth] = message;
    };
    readRuns(context, runs, full, roles, place);
    // With a role filter the depths left out are holes; without one every depth is there.
    return roles === null ? messages : messages.filter(() => true);
  });
}

/** A chunk's rows at most: large enough that per-statement costs vanish, small enough that a chunk's texts die young. */
const CHUNK_ROWS = 256;
/** A run shorter than this is read through a seq list together with its neighbours, not as a range of its own. */
const SHORT_RUN = 16;
/** After this many runs, runs averaging fewer than SHORT_RUN rows hand the rest of the walk to the CTE. */
const RUNS_BEFORE_FALLBACK = 4;

/**
 * The seqs of the path's messages at depths [fromDepth, toDepth), as `[low, high]` pairs of
 * consecutive seqs, from the head down.
 */
function pathRuns(context: SqliteContext, head: MessageRow, fromDepth: number, toDepth: number): number[] {
  const runs: number[] = [];
  // The highest row in a seq range that does not continue the one before it: where a run starts.
  const runStart = context.statement('SELECT seq, parent_seq FROM messages WHERE seq BETWEEN ? AND ? AND parent_seq IS NOT seq - 1 ORDER BY seq DESC LIMIT 1');
  runStart.raw(true);
  let seq = head.seq;
  let depth = head.depth;
  let count = 0;
  let rows = 0;
  while (depth >= fromDepth) {
    if (count > RUNS_BEFORE_FALLBACK && rows < count * SHORT_RUN) {
      walkLinks(context, seq, fromDepth, toDepth, runs);
      break;
    }
    // Going down from seq, every row whose parent is the row before it continues the run; the
    // run starts at the first one that does not, or at fromDepth's row (floor) if none does.
    const floor = seq - (depth - fromDepth);
    const found = runStart.get(floor + 1, seq) as [number, number | null] | undefined;
    const low = found ? found[0] : floor;
    // Rows above toDepth - 1 are walked through, not read.
    const high = seq - Math.max(0, depth - (toDepth - 1));
    if (high >= low) runs.push(low, high);
    count += 1;
    rows += seq - low + 1;
    if (!found || found[1] === null) break;
    depth -= seq - low + 1;
    seq = found[1];
  }
  return runs;
}

/** The rest of the path from `seq`, one parent link at a time, appended to `runs`. */
function walkLinks(context: SqliteContext, seq: number, fromDepth: number, toDepth: number, runs: number[]): void {
  const seqs = context
    .statement(
      `WITH RECURSIVE path(seq, parent_seq, depth) AS (
         SELECT seq, parent_seq, depth FROM messages WHERE seq = ?
         UNION ALL
         SELECT m.seq, m.parent_seq, m.depth FROM messages m JOIN path ON m.seq = path.parent_seq WHERE path.depth > ?
       )
       SELECT seq FROM path WHERE depth < ?`,
    )
    .pluck(true)
    .all(seq, fromDepth, toDepth) as number[];
  for (const next of seqs) {
    const last = runs.length - 2;
    if (last >= 0 && runs[last] === next + 1) runs[last] = next;
    else runs.push(next, next);
  }
}

/** One JSON text per row, `JsonRow` below; without payloads the last element is left out. */
const ROW_HEAD =
  "concat('[', json_quote(m.id), ',', json_quote(m.parent_id), ',', json_quote(m.session_id), ',', json_quote(m.role), ',', json_quote(m.kind), ',', json_quote(m.status), ',', json_quote(m.turn_id), ',', m.depth, ',', m.created_at, ',', m.metadata, ',', m.part_meta";
const ROW_JSON = `${ROW_HEAD}, ',', mp.parts, ']')`;
const ROW_JSON_WITHOUT_PARTS = `${ROW_HEAD}, ']')`;
type JsonRow = [
  id: string,
  parentId: string | null,
  sessionId: string,
  role: MessageWithParts['role'],
  kind: MessageWithParts['kind'],
  status: MessageWithParts['status'],
  turnId: string | null,
  depth: number,
  createdAt: number,
  metadata: JsonObject,
  partMeta: Array<[type: string, size: number]>,
  contents?: PartContent[],
];

/** The SQL of a chunk read: by seq range (`?` low, `?` high) or by seq list (`?` JSON array). */
function chunkSql(full: boolean, byList: boolean, roles: boolean): string {
  const source = byList ? 'json_each(?) j JOIN messages m ON m.seq = j.value' : 'messages m';
  const parts = full ? ' JOIN message_parts mp ON mp.seq = m.seq' : '';
  const where = byList ? (roles ? ' WHERE ' : '') : ` WHERE m.seq BETWEEN ? AND ?${roles ? ' AND ' : ''}`;
  const role = roles ? 'm.role IN (SELECT value FROM json_each(?))' : '';
  return `SELECT ${full ? ROW_JSON : ROW_JSON_WITHOUT_PARTS} FROM ${source}${parts}${where}${role}`;
}

/** Reads every seq of `runs` in chunks and hands each row's JSON text to `place`. */
function readRuns(context: SqliteContext, runs: number[], full: boolean, roles: string | null, place: (json: string) => void): void {
  const byRange = context.statement(chunkSql(full, false, roles !== null));
  const byList = context.statement(chunkSql(full, true, roles !== null));
  byRange.pluck(true);
  byList.pluck(true);
  const read = (rows: string[]): void => {
    for (let index = 0; index < rows.length; index++) place(rows[index]!);
  };
  const rangeArgs = (low: number, high: number): unknown[] => (roles === null ? [low, high] : [low, high, roles]);
  let list: number[] = [];
  const flushList = (): void => {
    if (list.length === 0) return;
    const seqs = JSON.stringify(list);
    read((roles === null ? byList.all(seqs) : byList.all(seqs, roles)) as string[]);
    list = [];
  };
  for (let index = 0; index < runs.length; index += 2) {
    const low = runs[index]!;
    const high = runs[index + 1]!;
    if (high - low + 1 < SHORT_RUN) {
      for (let seq = low; seq <= high; seq++) {
        list.push(seq);
        if (list.length === CHUNK_ROWS) flushList();
      }
      continue;
    }
    for (let start = low; start <= high; start += CHUNK_ROWS) {
      read(byRange.all(...rangeArgs(start, Math.min(high, start + CHUNK_ROWS - 1))) as string[]);
    }
  }
  flushList();
}

/**
 * A row's JSON, parsed, as the message `history()` returns: the same fields in the same order as
 * `toMessageWithParts`. `treeId` is the head's: a message's parent is always in its tree.
 */
function messageOf(row: JsonRow, treeId: string, full: boolean): MessageWithParts {
  const meta = row[10];
  const contents = row[11];
  const parts = new Array<Part>(meta.length);
  for (let index = 0; index < meta.length; index++) {
    const typeAndSize = meta[index]!;
    parts[index] = full
      ? { index, type: typeAndSize[0], size: typeAndSize[1], content: contents![index]! }
      : { index, type: typeAndSize[0], size: typeAndSize[1] };
  }
  return {
    id: row[0],
    treeId,
    parentId: row[1],
    sessionId: row[2],
    role: row[3],
    kind: row[4],
    status: row[5],
    turnId: row[6],
    depth: row[7],
    metadata: row[9],
    createdAt: row[8],
    parts,
  };
}
