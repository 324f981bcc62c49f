import { displayPath } from '../checkpoint/index.js';
import type { Entry, MessageWithParts } from '../model/index.js';
import { FILE_REWIND_ENTRY, type FileRewindEntryData } from '../rewind/index.js';
import type { Store } from '../store/index.js';

/** `metadata.note` of the model-only message that tells the model files were rewound under it. */
export const FILE_REWIND_NOTE = 'file-rewind';

/** One file the note names, with what it is now. */
export interface RewoundFileNotice {
  /** Workspace key (`workspace:src/a.ts`). */
  path: string;
  now: 'restored' | 'deleted' | 'recreated' | 'reapplied';
}

/**
 * What the model has to be told before its next call: files a rewind changed (or a redo changed
 * back) while the conversation it sees still describes them as it left them — a files-only rewind
 * (`/rewind <checkpoint>`, `latest`, `code`, cascade of code, undo of a turn's files) or its redo,
 * done by this runtime, the CLI in another process or the chat. Read from the session's
 * `file-rewind` entries, so nothing depends on which process rewound.
 *
 * - The entries already told are those up to the `rewindsThrough` of the latest note on the
 *   active path; a conversation rewind that cuts a note off makes its rewinds untold again for
 *   that branch, which is right: the model on that branch never saw it.
 * - A rewind matters only for files that turns on the active path changed: a rewind that also
 *   moved the conversation back before those turns (`both`) left the model's picture and the
 *   files in agreement, and needs no note. A redo always matters (the files now hold changes the
 *   model either does not remember or was told were undone).
 * - A file whose rewinds since the last note cancel out (rewound, then redone) is left out.
 *
 * Returns null when there is nothing to tell (the common case: one indexed read of the entries
 * after the last note).
 */
export async function fileRewindNotice(
  store: Store,
  sessionId: string,
  path: readonly MessageWithParts[],
): Promise<{ files: RewoundFileNotice[]; rewindsThrough: number; rewindIds: string[] } | null> {
  let told = 0;
  for (const message of path) {
    if (message.metadata.note === FILE_REWIND_NOTE && typeof message.metadata.rewindsThrough === 'number')
      told = Math.max(told, message.metadata.rewindsThrough);
  }
  const entries = await store.listEntries(sessionId, { type: FILE_REWIND_ENTRY, afterSeq: told });
  if (entries.length === 0) return null;
  const turnsOnPath = new Set(path.map((message) => message.turnId).filter((turnId): turnId is string => turnId !== null));
  const byPath = new Map<string, { firstFrom: string | null; lastTo: string | null; action: FileRewindEntryData['action'] }>();
  const rewindIds: string[] = [];
  for (const entry of entries) {
    const data = entry.data as FileRewindEntryData;
    const touched = await pathsByTurn(store, entry);
    const matters = (file: string) =>
      data.action === 'redo' ||
      touched.some((checkpoint) => checkpoint.turnId !== null && turnsOnPath.has(checkpoint.turnId) && checkpoint.paths.includes(file));
    const files = data.files.filter((file) => matters(file.path));
    if (files.length > 0) rewindIds.push(data.rewindId);
    for (const file of files) {
      const known = byPath.get(file.path);
      byPath.set(file.path, { firstFrom: known ? known.firstFrom : file.fromHash, lastTo: file.toHash, action: data.action });
    }
  }
  const files: RewoundFileNotice[] = [];
  for (const [file, state] of byPath) {
    if (state.firstFrom === state.lastTo) continue;
    const now = state.lastTo === null ? 'deleted' : state.firstFrom === null ? 'recreated' : state.action === 'redo' ? 'reapplied' : 'restored';
    files.push({ path: file, now });
  }
  if (files.length === 0) return null;
  return { files, rewindsThrough: entries.at(-1)!.seq, rewindIds };
}

/** The note's text: which files, what each is now, and to read before editing. */
export function fileRewindNoteText(files: readonly RewoundFileNotice[]): string {
  const words: Record<RewoundFileNotice['now'], string> = {
    restored: 'restored to an earlier version',
    deleted: 'deleted (it did not exist at the version it was rewound to)',
    recreated: 'recreated (it exists again, as it was before it was deleted)',
    reapplied: 'changed again (a rewind of it was redone)',
  };
  return [
    'Note from Waypoint: the person rewound files since your last look, without rewinding this conversation, so what the messages above say about these files is out of date:',
    ...files.map((file) => `- ${displayPath(file.path)}: ${words[file.now]}`),
    'Read a file again before editing it or relying on its content.',
  ].join('\n');
}

/**
 * Before a model call: appends the model-only note about files rewound under the conversation
 * (`fileRewindNotice`) to the session, in the running turn, and returns the path with it. The note
 * is a `meta` user message with visibility `model`, so the person's view and the rewind targets
 * never show it; it records the entries it covers, so the model is told once per branch.
 */
export async function withFileRewindNote(store: Store, scope: { sessionId: string; turnId: string }, path: MessageWithParts[]): Promise<MessageWithParts[]> {
  const notice = await fileRewindNotice(store, scope.sessionId, path);
  if (!notice) return path;
  const { message } = await store.appendMessage({
    sessionId: scope.sessionId,
    role: 'user',
    kind: 'meta',
    turnId: scope.turnId,
    parts: [{ type: 'text', text: fileRewindNoteText(notice.files) }],
    metadata: {
      visibility: 'model',
      note: FILE_REWIND_NOTE,
      rewindsThrough: notice.rewindsThrough,
      rewindIds: notice.rewindIds,
      files: notice.files.map((file) => ({ ...file })),
    },
  });
  return [...path, message];
}

/** Per store: the paths each rewind's checkpoints touched, by turn (entries and checkpoints never change). */
const memo = new WeakMap<Store, Map<string, Array<{ turnId: string | null; paths: string[] }>>>();

async function pathsByTurn(store: Store, entry: Entry): Promise<Array<{ turnId: string | null; paths: string[] }>> {
  let known = memo.get(store);
  if (!known) memo.set(store, (known = new Map()));
  const cached = known.get(entry.id);
  if (cached) return cached;
  const data = entry.data as FileRewindEntryData;
  const touched: Array<{ turnId: string | null; paths: string[] }> = [];
  for (const id of data.checkpointIds) {
    // A checkpoint retention removed says nothing about the conversation any more.
    const checkpoint = await store.getCheckpoint(id).catch(() => null);
    if (checkpoint) touched.push({ turnId: checkpoint.turnId, paths: checkpoint.toPath ? [checkpoint.path, checkpoint.toPath] : [checkpoint.path] });
  }
  if (known.size > 10_000) known.clear();
  known.set(entry.id, touched);
  return touched;
}
