import { createTwoFilesPatch } from 'diff';
import { displayPath, isBinaryContent, modeKind } from '../../checkpoint/index.js';
import type { Waypoint } from '../../engine/index.js';
import type { Checkpoint } from '../../model/index.js';
import { defineCommand, withWaypoint } from '../command.js';
import { formatBytes } from '../render/format.js';

export interface DiffReport {
  checkpoint: Checkpoint;
  /** The unified diff (null: binary, no content kept, or nothing to diff). */
  patch: string | null;
  /** `stored`: the patch recorded with the checkpoint; `computed`: made now from the before/after blobs. */
  patchSource: 'stored' | 'computed' | null;
  binary: boolean;
  beforeSize: number | null;
  afterSize: number | null;
  /** Why there is no patch, or what the change is beyond its text (rename, mode change …). */
  notes: string[];
}

/** A checkpoint's change as a unified diff: the stored patch, else one computed from its blobs. */
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
  if (checkpoint.patch !== null) return { ...base, ...sizes, patch: checkpoint.patch, patchSource: 'stored', notes };
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
  if (before !== null && after !== null && before.equals(after)) {
    return { ...base, ...sizes, patch: null, patchSource: null, notes: notes.length ? notes : ['the content did not change'] };
  }
  const patch = createTwoFilesPatch(
    before === null ? '/dev/null' : `a/${checkpoint.path}`,
    after === null ? '/dev/null' : `b/${checkpoint.toPath ?? checkpoint.path}`,
    before?.toString('utf8') ?? '',
    after?.toString('utf8') ?? '',
  );
  return { ...base, ...sizes, patch, patchSource: 'computed', notes };
}

function describeSizes(sizes: { beforeSize: number | null; afterSize: number | null }): string {
  const side = (size: number | null) => (size === null ? 'absent' : formatBytes(size));
  return `${side(sizes.beforeSize)} → ${side(sizes.afterSize)}`;
}

export function renderDiff(report: DiffReport): string[] {
  const { checkpoint } = report;
  const lines = [
    `# ${checkpoint.id}  #${checkpoint.seq} ${checkpoint.op} ${displayPath(checkpoint.path)}  (session ${checkpoint.sessionId}${checkpoint.turnId ? `, turn ${checkpoint.turnId}` : ''})`,
  ];
  for (const note of report.notes) lines.push(`# ${note}`);
  if (report.patch !== null) lines.push(...report.patch.replace(/\n$/, '').split('\n'));
  return lines;
}

export const diffCommand = defineCommand({
  name: 'diff',
  synopsis: ['diff <checkpoint>'],
  summary: "a checkpoint's change as a unified diff (the stored patch, else computed from its before/after contents)",
  description: ['Binary files, directories and changes whose content was not kept are described instead of diffed.'],
  flags: {},
  positionals: { min: 1, max: 1 },
  async run(context, args) {
    const report = await withWaypoint(context, (waypoint) => checkpointDiff(waypoint, args.positionals[0]!));
    return { data: report, text: renderDiff(report) };
  },
});
