// The store's side of the final check: every record that names file content (checkpoints and
// file-rewind entries of every session, journals, the GC roots), and whether each content it
// names can be read back.
import { FILE_REWIND_ENTRY, PRESERVED_ENTRY, WaypointError, type Journal, type Waypoint } from './engine.js';

/** A state of one path the store says existed: a checkpoint's after, or a rewind's target. */
export interface StoreRecord {
  /** Workspace-relative path. */
  path: string;
  /** Content hash after the change (null: absent). */
  result: string | null;
  createdAt: number;
  /** `checkpoint` or `rewind`, with its id (checkpoint id, or the rewind's journal id). */
  kind: 'checkpoint' | 'rewind';
  id: string;
  sessionId: string;
  detail: string;
}

/** A content reference someone could follow back (a checkpoint or a rewind entry). */
export interface ContentRef {
  hash: string;
  where: string;
  createdAt: number;
}

export interface StoreAccount {
  /** Records of the sessions working in the shared workspace. */
  records: StoreRecord[];
  /** Every content a checkpoint, a file-rewind entry or a kept-aside entry (any session) names, with where. */
  visible: Map<string, ContentRef[]>;
  /** The GC roots: visible contents, journal contents and pins. */
  roots: Set<string>;
  /** Contents that cannot be read, with the error code. */
  unreadable: Map<string, string>;
  journals: Journal[];
  checkpoints: number;
  rewinds: number;
  sessions: number;
  blobsRead: number;
}

const relative = (key: string): string => key.slice(key.indexOf(':') + 1);

export async function readStoreAccount(waypoint: Waypoint, sharedWorkdir: string): Promise<StoreAccount> {
  const { store, blobs } = waypoint;
  const records: StoreRecord[] = [];
  const visible = new Map<string, ContentRef[]>();
  const see = (hash: string | null, where: string, createdAt: number): void => {
    if (hash === null) return;
    const refs = visible.get(hash) ?? [];
    refs.push({ hash, where, createdAt });
    visible.set(hash, refs);
  };
  let checkpoints = 0;
  let rewinds = 0;
  const sessions = await store.listSessions();
  for (const session of sessions) {
    const shared = session.workdir === sharedWorkdir;
    for (const checkpoint of await store.listCheckpoints(session.id)) {
      checkpoints++;
      const where = `checkpoint ${checkpoint.id} (${checkpoint.source} ${checkpoint.op} ${checkpoint.path}${checkpoint.toPath ? ` → ${checkpoint.toPath}` : ''}, session ${session.id}, at ${checkpoint.createdAt})`;
      see(checkpoint.beforeHash, `${where} before`, checkpoint.createdAt);
      see(checkpoint.afterHash, `${where} after`, checkpoint.createdAt);
      if (!shared || checkpoint.status === 'skipped' || checkpoint.op === 'mkdir' || checkpoint.op === 'rmdir') continue;
      const base = { createdAt: checkpoint.createdAt, kind: 'checkpoint' as const, id: checkpoint.id, sessionId: session.id, detail: where };
      if (checkpoint.toPath !== null) {
        records.push({ ...base, path: relative(checkpoint.path), result: null });
        records.push({ ...base, path: relative(checkpoint.toPath), result: checkpoint.afterHash });
      } else {
        records.push({ ...base, path: relative(checkpoint.path), result: checkpoint.afterHash });
      }
    }
    for (const entry of await store.listEntries(session.id, { type: FILE_REWIND_ENTRY })) {
      rewinds++;
      const data = entry.data as {
        rewindId: string;
        action: string;
        kind: string;
        files: Array<{ path: string; fromHash: string | null; toHash: string | null }>;
      };
      for (const file of data.files) {
        const where = `${data.action} ${data.rewindId} (${data.kind}, ${file.path}, session ${session.id}, at ${entry.createdAt})`;
        see(file.fromHash, `${where} from`, entry.createdAt);
        see(file.toHash, `${where} to`, entry.createdAt);
        if (shared)
          records.push({
            path: relative(file.path),
            result: file.toHash,
            createdAt: entry.createdAt,
            kind: 'rewind',
            id: data.rewindId,
            sessionId: session.id,
            detail: where,
          });
      }
    }
    // Saves a refused rewind kept aside: listed by the session's rewind status, restorable.
    for (const entry of await store.listEntries(session.id, { type: PRESERVED_ENTRY })) {
      const data = entry.data as { rewindId: string; files: Array<{ path: string; hash: string }> };
      for (const file of data.files)
        see(file.hash, `kept aside by ${data.rewindId} (${file.path}, session ${session.id}, at ${entry.createdAt})`, entry.createdAt);
    }
  }
  const roots = await store.blobRoots();
  const unreadable = new Map<string, string>();
  const hashes = [...new Set([...visible.keys(), ...roots])];
  for (let start = 0; start < hashes.length; start += 200) {
    const settled = await blobs.getManySettled(hashes.slice(start, start + 200));
    for (const [hash, result] of settled) {
      if (result.status === 'rejected') unreadable.set(hash, WaypointError.is(result.reason) ? result.reason.code : String(result.reason));
    }
  }
  return {
    records,
    visible,
    roots,
    unreadable,
    journals: await store.listJournals(),
    checkpoints,
    rewinds,
    sessions: sessions.length,
    blobsRead: hashes.length,
  };
}
