import type { Message, MessageKind, MessageRole } from '../model/index.js';
import type { Store } from '../store/store.js';
import { coveredRange, isUserInput, type Visibility, visibilityOf } from './message-visibility.js';

/**
 * One message of a conversation tree as the views need it, linked to its parent, with what the
 * views would otherwise learn by reading the whole path from the root: running counts, the last
 * valid compaction and the last user input at or above it. Every field is a function of the
 * message and its ancestors, which never change (a message's id, parent, kind, role, turn and
 * metadata are fixed when it is appended; only a streaming message's parts and status change, and
 * they are not here), so a node stays true for as long as its message exists: a moved head, an
 * append or another process's write is just a new node (or an existing one) to start from.
 */
export interface OutlineNode {
  readonly id: string;
  readonly parent: OutlineNode | null;
  readonly depth: number;
  readonly role: MessageRole;
  readonly kind: MessageKind;
  readonly turnId: string | null;
  readonly metadata: Message['metadata'];
  readonly visibility: Visibility;
  /** Messages a person sees (not model-only) from the root to here, this one included. */
  readonly shownCount: number;
  /** Of those, the ones that are not summaries: what a summary's "stands for" count counts. */
  readonly plainCount: number;
  /** For a summary whose range ends on its own path before it: the last message it covers. */
  readonly covers: OutlineNode | null;
  /** The last summary at or above here whose range is valid: the one the views compact by. */
  readonly compaction: OutlineNode | null;
  /** The last valid summary at or above here that a person sees (where the model's view starts). */
  readonly shownCompaction: OutlineNode | null;
  /** The last user input at or above here. */
  readonly lastInput: OutlineNode | null;
}

type Row = Pick<Message, 'id' | 'parentId' | 'depth' | 'role' | 'kind' | 'turnId' | 'metadata'>;

/** Nodes kept per store at most; past it the cache starts over (a node costs a few hundred bytes). */
const MAX_NODES = 200_000;
/** The first read from an unknown head: enough for the newest page and what a turn appends. */
const FIRST_WINDOW = 64;
const SECOND_WINDOW = 1024;

const caches = new WeakMap<Store, Map<string, OutlineNode>>();
/** Reads under way, by message id: a page and a list asked for the same new head read it once. */
const reading = new WeakMap<Store, Map<string, Promise<OutlineNode>>>();

function cacheOf(store: Store): Map<string, OutlineNode> {
  let cache = caches.get(store);
  if (!cache) {
    cache = new Map();
    caches.set(store, cache);
  }
  return cache;
}

/**
 * The outline node of `messageId` (and so of the whole path from the root to it). Reads, without
 * payloads, only the messages above the nearest ancestor already outlined in this process: once a
 * session's path is known, a new head costs what was appended (or the new branch), not the path.
 */
export function outlineTo(store: Store, messageId: string): Promise<OutlineNode> {
  const known = cacheOf(store).get(messageId);
  if (known) return Promise.resolve(known);
  let pending = reading.get(store);
  if (!pending) {
    pending = new Map();
    reading.set(store, pending);
  }
  let read = pending.get(messageId);
  if (!read) {
    const inFlight = pending;
    read = readOutline(store, messageId).finally(() => inFlight.delete(messageId));
    pending.set(messageId, read);
  }
  return read;
}

async function readOutline(store: Store, messageId: string): Promise<OutlineNode> {
  const cache = cacheOf(store);
  let rows: Row[] = await store.pathTo(messageId, { parts: 'none', last: FIRST_WINDOW });
  for (const window of [SECOND_WINDOW, undefined]) {
    const oldest = rows[0]!;
    if (oldest.parentId === null || cache.has(oldest.parentId)) break;
    const below = await store.pathTo(oldest.parentId, { parts: 'none', ...(window === undefined ? {} : { last: window }) });
    rows = (below as Row[]).concat(rows);
  }
  if (cache.size + rows.length > MAX_NODES) cache.clear();
  // Between the reads another call may have outlined part of this path: reuse its nodes.
  let start = 0;
  for (let index = rows.length - 1; index >= 0; index--) {
    if (cache.has(rows[index]!.id)) {
      start = index + 1;
      break;
    }
  }
  const first = start > 0 ? rows[start - 1]!.id : rows[0]!.parentId;
  let parent = first === null ? null : (cache.get(first) ?? null);
  if (first !== null && parent === null) {
    // The cache started over while reading: outline the rest from scratch.
    return readOutline(store, messageId);
  }
  for (let index = start; index < rows.length; index++) {
    const node = outlineNode(rows[index]!, parent);
    cache.set(node.id, node);
    parent = node;
  }
  return cache.get(messageId)!;
}

function outlineNode(row: Row, parent: OutlineNode | null): OutlineNode {
  const visibility = visibilityOf(row);
  const shown = visibility !== 'model';
  const range = coveredRange(row);
  const covers = range ? ancestorWithId(parent, range.to) : null;
  const node: OutlineNode = {
    id: row.id,
    parent,
    depth: row.depth,
    role: row.role,
    kind: row.kind,
    turnId: row.turnId,
    metadata: row.metadata,
    visibility,
    shownCount: (parent?.shownCount ?? 0) + (shown ? 1 : 0),
    plainCount: (parent?.plainCount ?? 0) + (shown && row.kind !== 'summary' ? 1 : 0),
    covers,
    compaction: parent?.compaction ?? null,
    shownCompaction: parent?.shownCompaction ?? null,
    lastInput: parent?.lastInput ?? null,
  };
  const self = node as { -readonly [K in keyof OutlineNode]: OutlineNode[K] };
  if (covers) {
    self.compaction = node;
    if (shown) self.shownCompaction = node;
  }
  if (isUserInput(row)) self.lastInput = node;
  return node;
}

/**
 * The ancestor of `from` (itself included) with this id, or null. Walks parent links in memory;
 * a summary is written once, so this runs once per summary per process.
 */
function ancestorWithId(from: OutlineNode | null, id: string): OutlineNode | null {
  for (let node = from; node !== null; node = node.parent) if (node.id === id) return node;
  return null;
}

/** The node at `depth` on the path to `node` (null when `depth` is below the root or above `node`). */
export function ancestorAt(node: OutlineNode | null, depth: number): OutlineNode | null {
  if (node === null || depth < 0 || depth > node.depth) return null;
  let current: OutlineNode | null = node;
  while (current !== null && current.depth > depth) current = current.parent;
  return current;
}

/**
 * Whether the view compacted by `compaction` hides `node` from the model (the person still sees
 * it, marked): everything up to the end of its range, and the summaries between that end and it.
 */
export function isCompacted(node: OutlineNode, compaction: OutlineNode | null): boolean {
  if (compaction === null) return false;
  const end = compaction.covers!.depth;
  if (node.depth <= end) return true;
  return node.kind === 'summary' && node.depth < compaction.depth;
}

/** Forgets every outline of `store` (tests use it to compare a cold read with a warm one). */
export function forgetOutlines(store: Store): void {
  caches.delete(store);
}
