import { displayPath, isBinaryContent, modeKind, unifiedPatch } from '../../checkpoint/index.js';
import type { Waypoint } from '../../engine/index.js';
import type { Checkpoint } from '../../model/index.js';
import { formatBytes } from './format.js';
import { gitPatch, hunksOf } from './git-patch.js';

export interface DiffReport {
  checkpoint: Checkpoint;
  /**
   * The change as a patch `git apply` takes (`diff --git` header, mode, rename, created and deleted
   * lines, hunks); null when there is nothing a patch can say (binary, no content kept, a directory).
   */
  patch: string | null;
  /** `computed`: made now from the before/after blobs (the truth); `stored`: the patch recorded with the checkpoint. */
  patchSource: 'stored' | 'computed' | null;
  binary: boolean;
  beforeSize: number | null;
  afterSize: number | null;
  /** Why there is no patch, or what the change is beyond its text (rename, mode change …). */
  notes: string[];
}

/**
 * A checkpoint's change as a git-style patch, computed from its blobs with the minimal line diff
 * (a small edit of a big file is a small patch); the stored patch's hunks only when the contents
 * are too large to diff now.
 */
export async function checkpointDiff(waypoint: Waypoint, checkpointId: string): Promise<DiffReport> {
  const checkpoint = await waypoint.store.getCheckpoint(checkpointId);
  const notes: string[] = [];
  const from = displayPath(checkpoint.path);
  const to = checkpoint.toPath === null ? from : displayPath(checkpoint.toPath);
  if (checkpoint.toPath !== null) notes.push(`${checkpoint.op === 'move' ? 'moved' : 'renamed'} ${from} → ${to}`);
  if (checkpoint.beforeMode !== null && checkpoint.afterMode !== null && checkpoint.beforeMode !== checkpoint.afterMode) {
    notes.push(`mode ${checkpoint.beforeMode.toString(8)} → ${checkpoint.afterMode.toString(8)}`);
  }
  const base = { checkpoint, binary: false, beforeSize: null, afterSize: null };
  if (checkpoint.status === 'skipped') {
    return { ...base, patch: null, patchSource: null, notes: [...notes, `no content was kept for this change (${checkpoint.skipReason ?? 'skipped'})`] };
  }
  if (checkpoint.op === 'mkdir' || checkpoint.op === 'rmdir') {
    return { ...base, patch: null, patchSource: null, notes: [...notes, `${checkpoint.op === 'mkdir' ? 'created' : 'removed'} directory ${from}`] };
  }
  const [before, after] = await Promise.all([
    checkpoint.beforeHash === null ? null : waypoint.blobs.get(checkpoint.beforeHash),
    checkpoint.afterHash === null ? null : waypoint.blobs.get(checkpoint.afterHash),
  ]);
  const sizes = { beforeSize: before?.length ?? null, afterSize: after?.length ?? null };
  const symlink = [checkpoint.beforeMode, checkpoint.afterMode].some((mode) => mode !== null && modeKind(mode) === 'symlink');
  if (symlink) notes.push('a symbolic link: the diff is of its target text');
  const binary = (before !== null && isBinaryContent(before)) || (after !== null && isBinaryContent(after));
  if (binary) {
    return {
      ...base,
      ...sizes,
      binary: true,
      patch: null,
      patchSource: null,
      notes: [...notes, `binary file ${checkpoint.op === 'create' ? 'created' : checkpoint.op === 'delete' ? 'deleted' : 'changed'}: ${describeSizes(sizes)}`],
    };
  }
  // A side whose mode was not recorded is an ordinary file.
  const header = {
    from,
    to,
    before: before === null ? null : (checkpoint.beforeMode ?? 0o100644),
    after: after === null ? null : (checkpoint.afterMode ?? 0o100644),
  };
  if (before !== null && after !== null && before.equals(after)) {
    const patch = gitPatch(header, []);
    return { ...base, ...sizes, patch, patchSource: patch === null ? null : 'computed', notes: notes.length ? notes : ['the content did not change'] };
  }
  const computed = unifiedPatch(from, before, after, to);
  if (computed !== null) return { ...base, ...sizes, patch: gitPatch(header, hunksOf(computed)), patchSource: 'computed', notes };
  if (checkpoint.patch !== null) return { ...base, ...sizes, patch: gitPatch(header, hunksOf(checkpoint.patch)), patchSource: 'stored', notes };
  return { ...base, ...sizes, patch: null, patchSource: null, notes: [...notes, `too large to diff: ${describeSizes(sizes)}`] };
}

function describeSizes(sizes: { beforeSize: number | null; afterSize: number | null }): string {
  const side = (size: number | null) => (size === null ? 'absent' : formatBytes(size));
  return `${side(sizes.beforeSize)} → ${side(sizes.afterSize)}`;
}

/** The report as lines: `#` lines saying what the checkpoint is (git apply skips them), then the patch. */
export function renderDiff(report: DiffReport): string[] {
  const { checkpoint } = report;
  const lines = [
    `# ${checkpoint.id}  #${checkpoint.seq} ${checkpoint.op} ${displayPath(checkpoint.path)}  (session ${checkpoint.sessionId}${checkpoint.turnId ? `, turn ${checkpoint.turnId}` : ''})`,
  ];
  for (const note of report.notes) lines.push(`# ${note}`);
  if (report.patch !== null) lines.push(...report.patch.replace(/\n$/, '').split('\n'));
  return lines;
}
