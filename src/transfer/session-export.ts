import type { BlobStore } from '../blobs/index.js';
import { subagentLink } from '../history/index.js';
import type { JsonValue, Session } from '../model/index.js';
import type { RecordsImport, Store } from '../store/index.js';
import { EXPORT_FORMAT, EXPORT_VERSION, type ExportFrame, type ExportHeader, type TransferProgress } from './transfer-format.js';

const HASH = /^[0-9a-f]{64}$/;

/**
 * The sessions an export carries. With `family`: the session's whole family — its root session,
 * every fork and side chat of that root, and the subagent transcripts any of them ran (and theirs).
 * Without: the session and the sessions it was forked from (its records name them).
 */
export async function exportedSessions(store: Store, sessionId: string, family: boolean): Promise<Session[]> {
  const session = await store.getSession(sessionId);
  const chosen = new Map<string, Session>();
  if (!family) {
    for (let current: Session | null = session; current && !chosen.has(current.id); ) {
      chosen.set(current.id, current);
      current = current.parentSessionId === null ? null : await store.findSession(current.parentSessionId);
    }
    return [...chosen.values()].reverse();
  }
  const all = await store.listSessions();
  const roots = [session.rootSessionId];
  for (let index = 0; index < roots.length; index++) {
    for (const member of all) {
      if (member.rootSessionId === roots[index] && !chosen.has(member.id)) chosen.set(member.id, member);
    }
    for (const member of all) {
      const link = subagentLink(member);
      if (link && chosen.has(link.parentSessionId) && !roots.includes(member.rootSessionId)) roots.push(member.rootSessionId);
    }
  }
  if (!chosen.has(session.id)) chosen.set(session.id, session);
  return [...chosen.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
}

/** Every record of `sessions` (the messages of their conversation trees whole), and the blobs they name. */
export async function readSessionRecords(store: Store, sessions: Session[]): Promise<{ records: RecordsImport; hashes: string[] }> {
  const records: RecordsImport = { sessions, messages: [], entries: [], turns: [], checkpoints: [], effects: [], pins: [] };
  const hashes = new Set<string>();
  for (const treeId of new Set(sessions.map((session) => session.treeId))) {
    const tree = await store.listTreeMessages(treeId);
    const ordered = tree.sort((a, b) => a.depth - b.depth);
    for (const message of await store.getMessages(ordered.map((item) => item.id))) {
      const { parts, ...rest } = message;
      records.messages.push({ ...rest, parts: parts.map((part) => part.content!) });
      for (const part of parts) if (typeof part.content?.blobHash === 'string') hashes.add(part.content.blobHash);
    }
  }
  for (const session of sessions) {
    const entries = await store.listEntries(session.id);
    records.entries.push(...entries);
    // Contents named only by entries (what a file rewind overwrote, what a rewind kept aside) are
    // kept alive in the source by journals and pins; in the copy, by a pin of the session.
    const named = new Set<string>();
    for (const entry of entries) collectHashes(entry.data, named);
    if (named.size > 0) records.pins.push({ owner: `session:${session.id}:imported-contents`, hashes: [...named].sort() });
    for (const hash of named) hashes.add(hash);
    records.turns.push(...(await store.listTurns(session.id)));
    const checkpoints = await store.listCheckpoints(session.id);
    records.checkpoints.push(...checkpoints);
    for (const checkpoint of checkpoints) {
      if (checkpoint.beforeHash) hashes.add(checkpoint.beforeHash);
      if (checkpoint.afterHash) hashes.add(checkpoint.afterHash);
    }
    records.effects.push(...(await store.listEffects({ sessionId: session.id })));
  }
  // In the order the records name them: versions of one file stay together, so a batched read
  // decodes each delta chain once.
  return { records, hashes: [...hashes] };
}

/** Strings that are sha256 hashes under a key naming a hash (`hash`, `fromHash`, `toHash` …). */
function collectHashes(value: JsonValue | undefined, into: Set<string>, key = ''): void {
  if (typeof value === 'string') {
    if (/hash$/i.test(key) && HASH.test(value)) into.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectHashes(item, into, key);
  } else if (value && typeof value === 'object') {
    for (const [name, item] of Object.entries(value)) collectHashes(item, into, name);
  }
}

/**
 * An export as a stream of frames: the header, the records, pins, then each blob read (and
 * verified) from the store one at a time, so a session's file contents never need to fit in memory
 * together. Writers add the end line themselves (`writeExportFile`), or a store import reads the
 * frames directly.
 */
export async function* exportFrames(
  store: Store,
  blobs: BlobStore,
  request: { sessionId: string; family: boolean },
  onProgress?: (progress: TransferProgress) => void,
): AsyncGenerator<ExportFrame> {
  const sessions = await exportedSessions(store, request.sessionId, request.family);
  const { records, hashes } = await readSessionRecords(store, sessions);
  const present = await blobs.hasMany(hashes);
  const kept = hashes.filter((hash) => present.has(hash));
  const sizes = new Map<string, number>();
  for (const hash of kept) sizes.set(hash, (await blobs.stat(hash)).size);
  const blobBytes = [...sizes.values()].reduce((sum, size) => sum + size, 0);
  const header: ExportHeader = {
    t: 'header',
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    createdAt: Date.now(),
    sessionId: request.sessionId,
    family: request.family,
    sessionIds: sessions.map((session) => session.id),
    counts: {
      sessions: records.sessions.length,
      messages: records.messages.length,
      entries: records.entries.length,
      turns: records.turns.length,
      checkpoints: records.checkpoints.length,
      effects: records.effects.length,
      blobs: kept.length,
      blobBytes,
    },
    missingBlobs: hashes.filter((hash) => !present.has(hash)),
  };
  yield header;
  const total =
    records.sessions.length + records.messages.length + records.entries.length + records.turns.length + records.checkpoints.length + records.effects.length;
  let done = 0;
  const step = () => {
    done++;
    if (done % 500 === 0 || done === total) onProgress?.({ phase: 'records', done, total });
  };
  for (const record of records.sessions) {
    yield { t: 'session', record };
    step();
  }
  for (const record of records.messages) {
    yield { t: 'message', record };
    step();
  }
  for (const record of records.entries) {
    yield { t: 'entry', record };
    step();
  }
  for (const record of records.turns) {
    yield { t: 'turn', record };
    step();
  }
  for (const record of records.checkpoints) {
    yield { t: 'checkpoint', record };
    step();
  }
  for (const record of records.effects) {
    yield { t: 'effect', record };
    step();
  }
  for (const pin of records.pins) yield { t: 'pin', owner: pin.owner, hashes: pin.hashes };
  let bytes = 0;
  for (let start = 0; start < kept.length; ) {
    // Read in batches (a batch decodes a delta chain once), at most 8 MiB of content each.
    const batch: string[] = [];
    let batchBytes = 0;
    while (start < kept.length && (batch.length === 0 || (batch.length < 256 && batchBytes + sizes.get(kept[start]!)! <= BATCH_BYTES))) {
      batchBytes += sizes.get(kept[start]!)!;
      batch.push(kept[start++]!);
    }
    const contents = await blobs.getMany(batch);
    for (const hash of batch) {
      const content = contents.get(hash)!;
      bytes += content.length;
      yield { t: 'blob', hash, size: content.length, data: content.toString('base64') };
      onProgress?.({ phase: 'blobs', done: bytes, total: blobBytes });
    }
  }
}

const BATCH_BYTES = 8 * 1024 * 1024;
