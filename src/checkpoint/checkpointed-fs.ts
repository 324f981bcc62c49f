import { lstatSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { hashContent, InvalidArgumentError, type Checkpoint } from '../model/index.js';
import type { NewCheckpoint } from '../store/store.js';
import { deletePath, FileWriteFailedError, movePath, prepareFileWrite, writtenStamps, type ResolvedPath, type WrittenIdentity } from '../workspace/index.js';
import type { CaptureContext } from './capture-context.js';
import { checkArgument, checkCaptureContext, checkFsCall, CheckpointedFsOptionsSchema } from './capture-input-schemas.js';
import { captureEntry, DEFAULT_CHECKPOINT_MAX_FILE_SIZE, DIRECTORY_MODE, resolveEntryTarget, resolveWriteTarget, type CapturedEntry } from './file-capture.js';
import { replaceIfRead } from './replace-if-read.js';
import { beginStoreChangeContents, recordChanges, type PendingChange, type StoreChangesOptions } from './record-changes.js';

type RecoveredFile = NonNullable<StoreChangesOptions['files']>[number];

export interface CheckpointedFsOptions {
  /** Contents above this many bytes are not kept: the change is recorded `skipped` / `too_large`. Default 10 MiB. */
  maxFileSize?: number;
  /** Recorded as the checkpoints' tool name (e.g. the storage plugin's name). Default null. */
  toolName?: string | null;
  toolCallId?: string | null;
}

/** What one call changed and recorded (`checkpoints` is empty for untracked roots). */
export interface FsChange {
  /** Workspace key of the path changed (`workspace:src/a.ts`). */
  path: string;
  checkpoints: Checkpoint[];
}

/**
 * A file system bound to one session and turn that snapshots the original content *before* it
 * writes, deletes, renames or moves anything, as checkpoints with source
 * `fs`. Every mutation is one checkpoint: a path changed three times in a turn gives three, the
 * after of one being the before of the next; identical content is stored once (content
 * addressing), so the turn's original is kept exactly once.
 *
 * - Files above `maxFileSize` are changed as asked and recorded `skipped` / `too_large`.
 * - `rmdir` of a non-empty directory needs `recursive: true`; it is recorded `skipped` /
 *   `recursive_delete` (there is no content snapshot of a whole tree), never silently.
 * - Roots of kind data, pluginData, logs, tmp and the store's directory are written, not recorded.
 * - Refusals (outside the roots, missing source, existing destination) change and record nothing.
 *
 * @example
 * const fs = new CheckpointedFs(await openCaptureContext({ store, blobs, sessionId, turnId }))
 * await fs.writeFile('notes.md', '# draft\n')
 * await fs.rename('notes.md', 'README.md')
 */
export class CheckpointedFs {
  private readonly maxFileSize: number;

  constructor(
    readonly context: CaptureContext,
    private readonly options: CheckpointedFsOptions = {},
  ) {
    checkCaptureContext(context);
    checkArgument(CheckpointedFsOptionsSchema, options, 'options');
    this.maxFileSize = options.maxFileSize ?? DEFAULT_CHECKPOINT_MAX_FILE_SIZE;
    if (!Number.isInteger(this.maxFileSize) || this.maxFileSize < 0) {
      throw new InvalidArgumentError({ parameter: 'maxFileSize', value: options.maxFileSize, reason: 'must be a non-negative whole number of bytes.' });
    }
  }

  /**
   * Creates or replaces a file atomically (a symlink at the path is followed: its target changes).
   * Refused with `FILE_CHANGED_DURING_WRITE`, nothing changed, when the file changed after it was read.
   */
  async writeFile(path: string, content: Buffer | string, options: { mode?: number; root?: string } = {}): Promise<FsChange> {
    checkFsCall({ path }, options, { content });
    const target = resolveWriteTarget(this.context.workspace, path, rootOption(options));
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    const before = captureEntry(target, this.maxFileSize);
    if (before.exists && before.kind === 'dir') {
      throw new InvalidArgumentError({
        code: 'PATH_IS_DIRECTORY',
        parameter: 'path',
        value: target.key,
        reason: 'is a directory; write to a file path inside it.',
      });
    }
    const change: PendingChange | null =
      before.exists && before.content?.equals(bytes) && (options.mode === undefined || options.mode === before.mode)
        ? null
        : this.contentChange(target.key, before, bytes);
    let written: WrittenIdentity | null = null;
    const result = await this.apply(
      target,
      change ? [change] : [],
      () => {
        const write = prepareFileWrite(target, bytes, options.mode === undefined ? {} : { mode: options.mode });
        try {
          // Only over what was read: a save that landed since is kept and the write refused.
          replaceIfRead(target, before, write, { durable: true });
        } catch (error) {
          write.abort();
          throw error;
        }
        written = write.written;
        if (change) change.afterMode = write.mode;
      },
      false,
      change?.skipReason ? [] : [{ path: target.key, entryPath: target.entryPath }],
    );
    // An undo of this write knows the file by its stat while nobody has touched it (see `writtenStamps`).
    const afterHash = result.checkpoints.find((checkpoint) => checkpoint.path === target.key)?.afterHash;
    if (afterHash) writtenStamps.record(target.entryPath, afterHash, written);
    return result;
  }

  /**
   * Deletes a file or symlink; a path already gone records nothing. Directories: use {@link rmdir}.
   * Refused with `FILE_CHANGED_DURING_WRITE`, nothing changed, when the file changed after it was read.
   */
  async deleteFile(path: string, options: { root?: string } = {}): Promise<FsChange & { existed: boolean }> {
    checkFsCall({ path }, options);
    const target = resolveEntryTarget(this.context.workspace, path, rootOption(options));
    const before = captureEntry(target, this.maxFileSize);
    if (!before.exists) return { path: target.key, checkpoints: [], existed: false };
    if (before.kind === 'dir') {
      throw new InvalidArgumentError({ code: 'PATH_IS_DIRECTORY', parameter: 'path', value: target.key, reason: 'is a directory; remove it with rmdir.' });
    }
    const change = this.contentChange(target.key, before, null);
    const result = await this.apply(
      target,
      [change],
      () => replaceIfRead(target, before, null, { durable: true }),
      false,
      change.skipReason ? [] : [{ path: target.key, entryPath: target.entryPath }],
    );
    return { ...result, existed: true };
  }

  /** Renames a file, symlink or directory (op `rename`); see {@link move}. */
  async rename(from: string, to: string, options: { overwrite?: boolean; root?: string } = {}): Promise<FsChange> {
    checkFsCall({ from, to }, options);
    return this.relocate('rename', from, to, options);
  }

  /**
   * Moves a file, symlink or directory, possibly across roots (op `move`, `path` → `toPath`,
   * before/after hash = the content's hash). With `overwrite`, an existing destination file is
   * first recorded as deleted (its content kept), so the move can be undone completely.
   */
  async move(from: string, to: string, options: { overwrite?: boolean; root?: string } = {}): Promise<FsChange> {
    checkFsCall({ from, to }, options);
    return this.relocate('move', from, to, options);
  }

  /** Creates a directory; with `recursive`, each missing ancestor too (one `mkdir` checkpoint each, outermost first). */
  async mkdir(path: string, options: { recursive?: boolean; mode?: number; root?: string } = {}): Promise<FsChange> {
    checkFsCall({ path }, options);
    const target = resolveEntryTarget(this.context.workspace, path, rootOption(options));
    if (target.relativePath === '') return { path: target.key, checkpoints: [] };
    const missing: ResolvedPath[] = [];
    for (let current: string = target.relativePath; current !== '.' && current !== ''; current = dirname(current)) {
      const resolved = this.context.workspace.resolve(current, { root: target.root.name });
      const state = captureEntry(resolved, 0);
      if (state.exists) {
        if (state.kind !== 'dir') throw new FileWriteFailedError({ path: resolved.key, operation: 'mkdir', reason: 'ENOTDIR' });
        break;
      }
      missing.unshift(resolved);
      if (!options.recursive) break;
    }
    if (missing.length === 0) {
      if (options.recursive) return { path: target.key, checkpoints: [] };
      throw new FileWriteFailedError({ path: target.key, operation: 'mkdir', reason: 'EEXIST' });
    }
    const changes: PendingChange[] = missing.map((dir) => ({ op: 'mkdir', path: dir.key, beforeHash: null, afterHash: null }));
    return this.apply(target, changes, () => {
      try {
        mkdirSync(target.entryPath, { recursive: options.recursive ?? false, mode: options.mode ?? 0o777 });
      } catch (error) {
        throw new FileWriteFailedError({ path: target.key, operation: 'mkdir', reason: (error as NodeJS.ErrnoException).code ?? String(error), cause: error });
      }
      for (const [index, change] of changes.entries()) change.afterMode = DIRECTORY_MODE | (lstatSync(missing[index]!.entryPath).mode & 0o7777);
    });
  }

  /**
   * Removes a directory. An empty one is recorded as `rmdir`; a non-empty one is refused unless
   * `recursive`, and then removed and recorded `skipped` / `recursive_delete` (its files have no
   * snapshot; rewinding it reports an error rather than a success).
   */
  async rmdir(path: string, options: { recursive?: boolean; root?: string } = {}): Promise<FsChange & { existed: boolean }> {
    checkFsCall({ path }, options);
    const target = resolveEntryTarget(this.context.workspace, path, rootOption(options));
    const before = captureEntry(target, 0);
    if (!before.exists) return { path: target.key, checkpoints: [], existed: false };
    if (before.kind !== 'dir') {
      throw new InvalidArgumentError({
        code: 'PATH_NOT_DIRECTORY',
        parameter: 'path',
        value: target.key,
        reason: 'is not a directory; remove it with deleteFile.',
      });
    }
    if (target.relativePath === '') {
      throw new InvalidArgumentError({ parameter: 'path', value: target.key, reason: 'is a root directory itself; roots are never removed.' });
    }
    let empty = true;
    try {
      deletePath(target);
    } catch (error) {
      if (!(error instanceof FileWriteFailedError) || !['ENOTEMPTY', 'EEXIST'].includes(error.reason)) throw error;
      empty = false;
    }
    if (empty) {
      const checkpoints = target.tracked
        ? await recordChanges(this.context, this.origin(), [{ op: 'rmdir', path: target.key, beforeHash: null, afterHash: null, beforeMode: before.mode }])
        : [];
      return { path: target.key, checkpoints, existed: true };
    }
    if (!options.recursive) {
      throw new FileWriteFailedError({ path: target.key, operation: 'delete', reason: 'ENOTEMPTY' });
    }
    const change: PendingChange = { op: 'rmdir', path: target.key, beforeMode: before.mode, skipReason: 'recursive_delete' };
    const result = await this.apply(target, [change], () => rmSync(target.entryPath, { recursive: true }));
    return { ...result, existed: true };
  }

  private async relocate(op: 'rename' | 'move', from: string, to: string, options: { overwrite?: boolean; root?: string }): Promise<FsChange> {
    const source = resolveEntryTarget(this.context.workspace, from, rootOption(options));
    const destination = resolveEntryTarget(this.context.workspace, to, rootOption(options));
    const moving = captureEntry(source, this.maxFileSize);
    if (!moving.exists) throw new FileWriteFailedError({ path: `${source.key} -> ${destination.key}`, operation: 'move', reason: 'ENOENT' });
    const existing = captureEntry(destination, this.maxFileSize);
    const changes: PendingChange[] = [];
    const files: RecoveredFile[] = [];
    if (existing.exists) {
      if (!options.overwrite) throw new FileWriteFailedError({ path: `${source.key} -> ${destination.key}`, operation: 'move', reason: 'EEXIST' });
      if (existing.kind === 'dir') {
        throw new InvalidArgumentError({
          code: 'PATH_IS_DIRECTORY',
          parameter: 'to',
          value: destination.key,
          reason: 'is an existing directory; move into a path inside it.',
        });
      }
      if (destination.tracked) changes.push(this.contentChange(destination.key, existing, null));
    }
    // A file or link moved with its content known: recovery can tell by looking whether it moved.
    if (moving.kind !== 'dir' && moving.content !== null && (!existing.exists || existing.content !== null)) {
      const hash = hashContent(moving.content);
      files.push({ path: source.key, entryPath: source.entryPath, beforeHash: hash, afterHash: null });
      files.push({
        path: destination.key,
        entryPath: destination.entryPath,
        beforeHash: existing.exists ? hashContent(existing.content!) : null,
        afterHash: hash,
      });
    }
    if (source.tracked || destination.tracked) {
      const base = { op, path: source.key, toPath: destination.key, beforeMode: moving.mode, afterMode: moving.mode, patch: null };
      if (moving.kind === 'dir') changes.push({ ...base, beforeHash: null, afterHash: null });
      else if (moving.tooLarge) changes.push({ ...base, skipReason: 'too_large' });
      else changes.push({ ...base, before: moving.content, after: moving.content });
    }
    // Recorded against the source; an untracked source moving into a tracked root still records.
    return this.apply(
      source.tracked ? source : destination,
      changes,
      () => movePath(source, destination, { overwrite: options.overwrite ?? false }),
      true,
      files,
    );
  }

  private contentChange(key: string, before: CapturedEntry, after: Buffer | null): PendingChange {
    const existed = before.exists;
    const op = !existed ? 'create' : after === null ? 'delete' : 'modify';
    const beforeMode = existed ? before.mode : null;
    if ((existed && before.tooLarge) || (after?.length ?? 0) > this.maxFileSize) return { op, path: key, beforeMode, skipReason: 'too_large' };
    return { op, path: key, before: existed ? before.content : null, after, beforeMode };
  }

  /**
   * Contents first (pinned with the pending rows and `files` as a write intent, before anything
   * changes), then the change, then the rows, which replace the intent in one transaction. A crash
   * between the change and the rows is completed when the store is next opened.
   */
  private async apply(
    target: ResolvedPath,
    changes: PendingChange[],
    perform: () => void,
    alwaysRecord = false,
    files: RecoveredFile[] = [],
  ): Promise<FsChange> {
    const record = (target.tracked || alwaysRecord) && changes.length > 0;
    if (!record) {
      perform();
      return { path: target.key, checkpoints: [] };
    }
    const pending = await beginStoreChangeContents(this.context, this.origin(), changes, { files });
    let rows: NewCheckpoint[];
    try {
      rows = await pending.commit();
      perform();
    } catch (error) {
      pending.abort();
      throw error;
    }
    for (const [index, change] of changes.entries()) rows[index]!.afterMode = change.afterMode ?? rows[index]!.afterMode;
    return { path: target.key, checkpoints: await pending.finish(rows) };
  }

  private origin() {
    return { source: 'fs' as const, toolName: this.options.toolName ?? null, toolCallId: this.options.toolCallId ?? null };
  }
}

function rootOption(options: { root?: string }): { root?: string } {
  return options.root === undefined ? {} : { root: options.root };
}
