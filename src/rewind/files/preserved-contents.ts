import type { BlobStore } from '../../blobs/index.js';
import { WaypointError, type JsonObject, type Journal } from '../../model/index.js';
import type { NewEntry, Store } from '../../store/index.js';
import { isLinkMode, type Workspace } from '../../workspace/index.js';
import { readDisk } from './disk-state.js';
import { RewindConflictError } from './errors/index.js';
import type { FileRewindEntryData, RewoundFile } from './file-rewind-types.js';
import type { PreservedContent } from './journal-restore.js';
import type { WorkspaceLock } from './workspace-lock.js';

/**
 * The entry type that names contents a rewind kept aside: a save found on a path in the instant a
 * refused apply (or its rollback, or a recovery) compared the path, which someone wrote again
 * before it could go back. The content is in the blob store, pinned by the session; the entry makes
 * it visible (`listPreserved`, `rewind status`) and restorable (`restorePreserved`).
 */
export const PRESERVED_ENTRY = 'rewind-preserved';

/** A content kept aside by a rewind, as listed for a person. */
export interface PreservedSave {
  /** The journal (rewind id) whose apply, rollback or recovery kept it. */
  rewindId: string;
  path: string;
  hash: string;
  /**
   * Permission bits of a regular file, or `LINK_MODE | bits` of a symbolic link (its content is its
   * target text); null for a record made before modes were kept (put back as a regular file).
   */
  mode: number | null;
  size: number | null;
  createdAt: number;
  /** True once `restorePreserved` put it back at its path. */
  restored: boolean;
}

/** The owner of the pins that keep a record's kept-aside contents from garbage collection, for as long as its session lives. */
export function preservedPinOwner(sessionId: string, recordId: string): string {
  return `session:${sessionId}:rewind-preserved:${recordId}`;
}

/**
 * The entry that records contents kept aside under `recordId` (the rewind that kept them, or a
 * sweep's record); `extra` fields go into its data beside `rewindId` and `files`.
 */
export function preservedRecord(
  sessionId: string,
  recordId: string,
  files: readonly PreservedContent[],
  extra: JsonObject = {},
): { sessionId: string; entry: NewEntry } {
  return {
    sessionId,
    entry: {
      type: PRESERVED_ENTRY,
      data: {
        rewindId: recordId,
        files: files.map((item) => ({ path: item.path, hash: item.hash, ...(item.mode === null ? {} : { mode: item.mode }) })),
        ...extra,
      },
    },
  };
}

/** The entry that records `preserved` for `journal` (null when there is nothing to record). */
export function preservedEntry(journal: Journal, preserved: readonly PreservedContent[]): { sessionId: string; entry: NewEntry } | null {
  if (preserved.length === 0 || journal.sessionId === null) return null;
  return preservedRecord(journal.sessionId, journal.id, preserved);
}

/** Every content the session's rewinds kept aside, oldest first, with whether it was restored since. */
export async function listPreserved(store: Store, sessionId: string): Promise<PreservedSave[]> {
  const kept = await store.listEntries(sessionId, { type: PRESERVED_ENTRY });
  if (kept.length === 0) return [];
  const restores = await store.listEntries(sessionId, { type: 'file-rewind' });
  const restored = new Set<string>();
  for (const entry of restores) {
    const data = entry.data as unknown as FileRewindEntryData & { restores?: { rewindId: string; path: string } };
    if (data.kind === 'preserved' && data.restores) restored.add(`${data.restores.rewindId}\n${data.restores.path}`);
  }
  const saves: PreservedSave[] = [];
  for (const entry of kept) {
    const data = entry.data as { rewindId: string; files: Array<{ path: string; hash: string; mode?: number }> };
    const records = await store.blobs.getRecords(data.files.map((file) => file.hash));
    for (const file of data.files)
      saves.push({
        rewindId: data.rewindId,
        path: file.path,
        hash: file.hash,
        mode: typeof file.mode === 'number' ? file.mode : null,
        size: records.get(file.hash)?.size ?? null,
        createdAt: entry.createdAt,
        restored: restored.has(`${data.rewindId}\n${file.path}`),
      });
  }
  return saves;
}

/**
 * Puts a content a rewind kept aside back at its path, as a rewind of kind `preserved`: journaled,
 * what the path holds now is kept (the rewind can be redone), and the path is compared and
 * replaced in one step (a save landing meanwhile is a conflict, nothing changed). Like every
 * rewind of the workspace it applies under the workspace lock, one at a time across processes.
 * Throws `PRESERVED_NOT_FOUND` when the session kept no such content.
 */
export async function restorePreserved(input: {
  store: Store;
  blobs: BlobStore;
  workspace: Workspace;
  sessionId: string;
  rewindId: string;
  path: string;
  durable?: boolean;
}): Promise<{ rewindId: string; files: RewoundFile[] }> {
  // Imported here: journaled-apply imports this module for the entries it records.
  const [{ journaledApply }, { applyInPass, inPasses }] = await Promise.all([import('./journaled-apply.js'), import('./locked-apply.js')]);
  return inPasses(input.store, input.sessionId, async (pass) => {
    const saves = await listPreserved(input.store, input.sessionId);
    const save = saves.find((item) => item.rewindId === input.rewindId && item.path === input.path);
    if (!save)
      throw new WaypointError({
        code: 'PRESERVED_NOT_FOUND',
        message: `Session ${input.sessionId} kept no content of ${input.path} aside in rewind ${input.rewindId}. List what it kept with listPreserved (or the session's rewind status).`,
        details: { sessionId: input.sessionId, rewindId: input.rewindId, path: input.path },
        exitCode: 3,
        httpStatus: 404,
      });
    const disk = readDisk(input.workspace, save.path);
    if (!disk.ok || disk.resolved === null)
      throw new RewindConflictError({ files: [{ path: save.path, status: 'file_read_failed', reason: disk.ok ? 'it does not resolve' : disk.reason }] });
    const content = await input.blobs.get(save.hash);
    const apply = async (lock: WorkspaceLock) => {
      const { journal, files } = await journaledApply({
        store: input.store,
        blobs: input.blobs,
        workspace: input.workspace,
        sessionId: input.sessionId,
        kind: 'preserved',
        action: 'rewind',
        undoes: null,
        checkpointIds: [],
        restores: { rewindId: save.rewindId, path: save.path },
        steps: [
          {
            path: save.path,
            resolved: disk.resolved!,
            expected: disk.state,
            target: { exists: true, hash: save.hash, content, mode: restoredMode(save, disk.state.mode) },
            moveFrom: null,
            resolution: 'force',
          },
        ],
        ...(input.durable === undefined ? {} : { durable: input.durable }),
        lock,
      });
      return { rewindId: journal.id, files };
    };
    return applyInPass(
      {
        store: input.store,
        blobs: input.blobs,
        workspace: input.workspace,
        sessionId: input.sessionId,
        purpose: `restore of a kept-aside save in session ${input.sessionId}`,
        pass,
      },
      apply,
    );
  });
}

/**
 * The mode a kept-aside content goes back with: the one it had (a symbolic link goes back as a
 * link); for a record without one, the bits of the regular file at the path now, else 0644 — never
 * a link's mode for content that was not known to be a link.
 */
function restoredMode(save: PreservedSave, current: number | null): number {
  if (save.mode !== null) return save.mode;
  return current !== null && !isLinkMode(current) ? current : 0o644;
}
