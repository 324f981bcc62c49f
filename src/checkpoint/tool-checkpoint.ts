import { InvalidArgumentError, type Checkpoint } from '../model/index.js';
import type { NewCheckpoint } from '../store/store.js';
import { randomBytes } from 'node:crypto';
import { prepareFileWrite, replaceIf, tempPathOf, writtenStamps, type PreparedFileWrite } from '../workspace/index.js';
import type { CaptureContext } from './capture-context.js';
import { checkArgument, checkCaptureContext, ToolChangeSchema, ToolEditInputSchema, ToolWriteInputSchema } from './capture-input-schemas.js';
import { captureEntry, DEFAULT_CHECKPOINT_MAX_FILE_SIZE, resolveWriteTarget } from './file-capture.js';
import { replaceIfRead } from './replace-if-read.js';
import { beginStoreChangeContents, recordChanges, type PendingChange, type PendingChangeContents } from './record-changes.js';

/** A successful Write/Edit tool result, as the tool saw it. */
export interface ToolChange {
  toolName: string;
  toolCallId?: string | null;
  /** Relative to the primary root, absolute inside a root, or root-qualified with `root`. */
  path: string;
  root?: string;
  /** null: the file did not exist. */
  before: Buffer | null;
  /** null: the tool deleted the file. */
  after: Buffer | null;
  /** Permission bits after the change (and before it, unless `beforeMode` says otherwise). */
  mode?: number | null;
  beforeMode?: number | null;
  /** Contents above this are recorded `skipped` / `too_large` (default 10 MiB). */
  maxFileSize?: number;
}

/**
 * Records what a Write/Edit tool did, after it succeeded (a failed tool calls nothing, so records
 * nothing): stores before and after in the blob store, then writes one checkpoint with source
 * `tool` and a unified patch for text. Returns null when nothing is recorded: the path is in an
 * untracked root (data, logs, tmp …) or the store's directory, or the content did not change.
 *
 * @example
 * const before = existsSync(file) ? readFileSync(file) : null
 * writeFileSync(file, next) // the tool's own write
 * await recordToolChange({ ...context, toolName: 'Write', toolCallId: 'call_1', path: 'src/a.ts', before, after: next })
 */
export async function recordToolChange(input: CaptureContext & ToolChange): Promise<Checkpoint | null> {
  checkArgument(ToolChangeSchema, input, 'input');
  if (typeof input.toolName !== 'string' || input.toolName === '') {
    throw new InvalidArgumentError({ parameter: 'toolName', value: input.toolName, reason: 'name the tool that made the change (e.g. "Write").' });
  }
  if (input.before === null && input.after === null) {
    throw new InvalidArgumentError({
      parameter: 'before/after',
      value: null,
      reason: 'at least one of before and after must be content; a change from nothing to nothing is no change.',
    });
  }
  for (const [name, value] of [
    ['before', input.before],
    ['after', input.after],
  ] as const) {
    if (value !== null && !Buffer.isBuffer(value))
      throw new InvalidArgumentError({ parameter: name, value: typeof value, reason: 'must be a Buffer or null.' });
  }
  const target = input.workspace.resolve(input.path, input.root === undefined ? {} : { root: input.root });
  if (!target.tracked) return null;
  if (input.before !== null && input.after !== null && input.before.equals(input.after) && (input.beforeMode ?? input.mode) === input.mode) return null;
  const change = toolPendingChange(target.key, input.before, input.after, input.beforeMode ?? input.mode ?? null, input.mode ?? null, input.maxFileSize);
  const [checkpoint] = await recordChanges(input, { source: 'tool', toolName: input.toolName, toolCallId: input.toolCallId ?? null }, [change]);
  return checkpoint!;
}

export interface ToolWriteInput {
  path: string;
  root?: string;
  content: Buffer | string;
  /** Permission bits; default: the existing file's, else 0o666 less the umask. */
  mode?: number;
  toolName?: string;
  toolCallId?: string | null;
  maxFileSize?: number;
}

export interface ToolWriteResult {
  /** The workspace key of the file written (`workspace:src/a.ts`). */
  path: string;
  created: boolean;
  /** null when nothing was recorded (untracked root, or unchanged content and mode). */
  checkpoint: Checkpoint | null;
}

/**
 * A Write tool: replaces (or creates) a file atomically through the workspace and records the
 * checkpoint. The before content is in the blob store before the file is touched; the row is
 * written only after the write succeeded. Refusals (outside the roots, a directory at the path,
 * `FILE_CHANGED_DURING_WRITE` when the file changed after it was read) and write failures change
 * nothing and record nothing.
 */
export async function applyToolWrite(context: CaptureContext, input: ToolWriteInput): Promise<ToolWriteResult> {
  checkCaptureContext(context);
  checkArgument(ToolWriteInputSchema, input, 'input');
  const target = resolveWriteTarget(context.workspace, input.path, input.root === undefined ? {} : { root: input.root });
  const maxFileSize = input.maxFileSize ?? DEFAULT_CHECKPOINT_MAX_FILE_SIZE;
  const content = typeof input.content === 'string' ? Buffer.from(input.content) : input.content;
  if (!Buffer.isBuffer(content)) throw new InvalidArgumentError({ parameter: 'content', value: typeof input.content, reason: 'must be a string or a Buffer.' });
  const before = captureEntry(target, maxFileSize);
  if (before.exists && before.kind === 'dir') {
    throw new InvalidArgumentError({
      code: 'PATH_IS_DIRECTORY',
      parameter: 'path',
      value: target.key,
      reason: 'is a directory; write to a file path inside it.',
    });
  }
  return writeAndRecord(context, target, before.exists ? before : null, content, input.mode, {
    toolName: input.toolName ?? 'Write',
    toolCallId: input.toolCallId ?? null,
    maxFileSize,
  });
}

export interface ToolEditInput {
  path: string;
  root?: string;
  oldString: string;
  newString: string;
  /** Replace every occurrence instead of requiring exactly one. */
  replaceAll?: boolean;
  toolName?: string;
  toolCallId?: string | null;
  maxFileSize?: number;
}

export interface ToolEditResult extends ToolWriteResult {
  replacements: number;
}

/**
 * An Edit tool: exact-string replacement in an existing text file, written atomically (mode kept)
 * and checkpointed. Refused with nothing changed when the file is missing (`EDIT_FILE_NOT_FOUND`),
 * binary or too large (`EDIT_NOT_TEXT`), `oldString` is empty or equals `newString`
 * (`INVALID_ARGUMENT`), is absent (`EDIT_OLD_STRING_NOT_FOUND`) or occurs more than once without
 * `replaceAll` (`EDIT_OLD_STRING_AMBIGUOUS`).
 */
export async function applyToolEdit(context: CaptureContext, input: ToolEditInput): Promise<ToolEditResult> {
  checkCaptureContext(context);
  checkArgument(ToolEditInputSchema, input, 'input');
  if (typeof input.oldString !== 'string' || input.oldString === '') {
    throw new InvalidArgumentError({
      parameter: 'oldString',
      value: input.oldString,
      reason: 'must be the non-empty text to replace; use a Write to create or overwrite a file.',
    });
  }
  if (typeof input.newString !== 'string' || input.newString === input.oldString) {
    throw new InvalidArgumentError({ parameter: 'newString', value: input.newString, reason: 'must be a string different from oldString.' });
  }
  const target = resolveWriteTarget(context.workspace, input.path, input.root === undefined ? {} : { root: input.root });
  const maxFileSize = input.maxFileSize ?? DEFAULT_CHECKPOINT_MAX_FILE_SIZE;
  const before = captureEntry(target, maxFileSize);
  if (!before.exists || before.kind !== 'file') {
    throw new InvalidArgumentError({
      code: 'EDIT_FILE_NOT_FOUND',
      parameter: 'path',
      value: target.key,
      reason: before.exists ? 'is not a regular file; Edit changes text files.' : 'does not exist; create it with a Write first.',
    });
  }
  const text = before.content?.toString('utf8');
  if (before.content === null || text === undefined || !Buffer.from(text).equals(before.content) || before.content.includes(0)) {
    throw new InvalidArgumentError({
      code: 'EDIT_NOT_TEXT',
      parameter: 'path',
      value: target.key,
      reason: before.tooLarge ? `is larger than ${maxFileSize} bytes; Edit works on text files below that.` : 'is not UTF-8 text; Edit replaces text only.',
    });
  }
  const occurrences = countOccurrences(text, input.oldString);
  if (occurrences === 0) {
    throw new InvalidArgumentError({
      code: 'EDIT_OLD_STRING_NOT_FOUND',
      parameter: 'oldString',
      value: input.oldString,
      reason: `was not found in ${target.key}; read the file again and copy the exact text, whitespace included.`,
    });
  }
  if (occurrences > 1 && !input.replaceAll) {
    throw new InvalidArgumentError({
      code: 'EDIT_OLD_STRING_AMBIGUOUS',
      parameter: 'oldString',
      value: input.oldString,
      reason: `occurs ${occurrences} times in ${target.key}; include more surrounding text so it is unique, or pass replaceAll.`,
    });
  }
  const next = input.replaceAll ? text.split(input.oldString).join(input.newString) : text.replace(input.oldString, () => input.newString);
  const result = await writeAndRecord(context, target, before, Buffer.from(next), undefined, {
    toolName: input.toolName ?? 'Edit',
    toolCallId: input.toolCallId ?? null,
    maxFileSize,
  });
  return { ...result, replacements: input.replaceAll ? occurrences : 1 };
}

async function writeAndRecord(
  context: CaptureContext,
  target: ReturnType<typeof resolveWriteTarget>,
  before: Exclude<ReturnType<typeof captureEntry>, { exists: false }> | null,
  content: Buffer,
  mode: number | undefined,
  tool: { toolName: string; toolCallId: string | null; maxFileSize: number },
): Promise<ToolWriteResult> {
  const unchanged = before?.content?.equals(content) && (mode === undefined || mode === before.mode);
  // The contents are pinned with the pending checkpoint first (a write intent, so a crash from here
  // on is recovered when the store is next opened, the temp file it names included); then the new
  // content goes into that temp file beside the target, its fsync in the thread pool, while the
  // contents are stored (their sync in the pool too) and the patch is computed. The file is put in
  // place only once both syncs are done and the blobs are indexed: the before content is kept
  // before the file changes, and the row naming the blobs replaces the intent after that, in one
  // transaction. The file is replaced only if it still holds what was read; otherwise
  // FILE_CHANGED_DURING_WRITE, nothing changed.
  const tempId = randomBytes(6).toString('hex');
  const file: { write: PreparedFileWrite | null; synced: Promise<void> | null } = { write: null, synced: null };
  const startWrite = () => {
    file.write = prepareFileWrite(target, content, { tempId, ...(mode === undefined ? {} : { mode }) });
    file.synced = file.write.sync();
    // Awaited below; a failure is raised there.
    file.synced.catch(() => undefined);
  };
  let pending: PendingChangeContents | null = null;
  let rows: NewCheckpoint[] | null = null;
  try {
    if (target.tracked && !unchanged) {
      // The mode the file will have is known once its temp file exists; recovery reads it off the file.
      const change = toolPendingChange(
        target.key,
        before?.content ?? null,
        content,
        before?.mode ?? null,
        mode ?? null,
        tool.maxFileSize,
        before?.tooLarge ?? false,
      );
      const files = change.skipReason ? [] : [{ path: target.key, entryPath: target.entryPath, tempPath: tempPathOf(target, tempId) }];
      pending = await beginStoreChangeContents(context, { source: 'tool', toolName: tool.toolName, toolCallId: tool.toolCallId }, [change], {
        files,
        onPinned: startWrite,
      });
    }
    if (file.write === null) startWrite();
    await file.synced;
    rows = pending ? await pending.commit() : null;
    // Only over what was read: a save that landed since is kept and the write refused.
    replaceIfRead(target, before ?? { exists: false }, file.write!, { durable: true });
    if (rows) rows[0]!.afterMode = file.write!.mode;
  } catch (error) {
    file.write?.abort();
    pending?.abort();
    throw error;
  }
  if (rows === null) return { path: target.key, created: before === null, checkpoint: null };
  let checkpoint: Checkpoint | undefined;
  try {
    [checkpoint] = await pending!.finish(rows);
  } catch (error) {
    // The row could not be written (a full disk under the store …): the file goes back to what it
    // held, if it still holds what this write put there, so the failure changes nothing. Should that
    // fail too, the intent is still there and the next open records the write.
    undoWrite(target, before, content);
    pending!.abort();
    throw error;
  }
  // An undo of this write knows the file by its stat while nobody has touched it (see `writtenStamps`).
  if (checkpoint!.afterHash !== null) writtenStamps.record(target.entryPath, checkpoint!.afterHash, file.write!.written);
  return { path: target.key, created: before === null, checkpoint: checkpoint! };
}

function undoWrite(
  target: ReturnType<typeof resolveWriteTarget>,
  before: Exclude<ReturnType<typeof captureEntry>, { exists: false }> | null,
  written: Buffer,
): void {
  if (before !== null && (before.kind !== 'file' || before.content === null)) return;
  let previous: PreparedFileWrite | null = null;
  try {
    previous = before === null ? null : prepareFileWrite(target, before.content!, { mode: before.mode });
    replaceIf(target, (held) => held.exists && held.content.equals(written), previous, { durable: true });
  } catch {
    // left as written: recovery records it
  } finally {
    previous?.abort();
  }
}

function toolPendingChange(
  key: string,
  before: Buffer | null,
  after: Buffer | null,
  beforeMode: number | null,
  afterMode: number | null,
  maxFileSize = DEFAULT_CHECKPOINT_MAX_FILE_SIZE,
  beforeTooLarge = false,
): PendingChange {
  const op = before === null && !beforeTooLarge ? 'create' : after === null ? 'delete' : 'modify';
  const tooLarge = beforeTooLarge || (before?.length ?? 0) > maxFileSize || (after?.length ?? 0) > maxFileSize;
  if (tooLarge) return { op, path: key, beforeMode, afterMode, skipReason: 'too_large' };
  return { op, path: key, before, after, beforeMode, afterMode };
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + needle.length)) count++;
  return count;
}
