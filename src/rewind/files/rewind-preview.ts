import { unifiedPatch } from '../../checkpoint/index.js';
import type { Checkpoint } from '../../model/index.js';
import type { Workspace } from '../../workspace/index.js';
import { InvalidArgumentError } from '../../model/index.js';
import type { FileResolution, FileRewindPreview, PreviewFile } from './file-rewind-types.js';
import { planSteps, type PlannedStep } from './rewind-plan.js';
import { simulateRewind, type PathOutcome, type Simulation } from './rewind-simulation.js';
import type { SnapshotReader } from './snapshot-reader.js';
import type { EarlyWrites } from './early-writes.js';
import { readDisk } from './disk-state.js';

export interface PreviewInput {
  sessionId: string;
  target: FileRewindPreview['target'];
  /** Checkpoints in range, oldest first, already-rewound ones included. */
  checkpoints: readonly Checkpoint[];
  rewound: ReadonlySet<string>;
  includeShellChanges: boolean;
  resolutions: Record<string, FileResolution>;
  workspace: Workspace;
  snapshots: SnapshotReader;
  /** Temp files to begin while planning (a direct rewind about to apply; see `EarlyWrites`). */
  early?: EarlyWrites | undefined;
}

/** A preview and the writes it would make. */
export interface ComputedPreview {
  preview: FileRewindPreview;
  steps: PlannedStep[];
  simulation: Simulation;
}

/**
 * Simulates a rewind newest → oldest and reports each file (see `FileRewindPreview`). For files in
 * conflict without a resolution, a second simulation tries `merge` to tell whether it would apply
 * cleanly and what it would leave.
 */
export async function computePreview(input: PreviewInput): Promise<ComputedPreview> {
  const newestFirst = [...input.checkpoints].reverse();
  const candidates = newestFirst.filter((checkpoint) => !input.rewound.has(checkpoint.id));
  const alreadyRewound = newestFirst.filter((checkpoint) => input.rewound.has(checkpoint.id)).map((checkpoint) => checkpoint.id);
  const base = {
    checkpoints: candidates,
    workspace: input.workspace,
    snapshots: input.snapshots,
    policy: 'check' as const,
    includeShellChanges: input.includeShellChanges,
  };
  const simulation = await simulateRewind({ ...base, resolutions: input.resolutions, early: input.early });

  for (const path of Object.keys(input.resolutions)) {
    if (!simulation.paths.has(path)) {
      throw new InvalidArgumentError({
        code: 'RESOLUTION_UNKNOWN_PATH',
        parameter: `resolutions.${path}`,
        value: input.resolutions[path],
        reason: 'this rewind does not touch that file; preview first and resolve only files it lists.',
      });
    }
  }

  const probe: Record<string, FileResolution> = { ...input.resolutions };
  for (const outcome of simulation.paths.values())
    if (outcome.blocked && outcome.status === 'external_modified' && !input.resolutions[outcome.path]) probe[outcome.path] = 'merge';
  const mergeProbe = Object.keys(probe).length > Object.keys(input.resolutions).length ? await simulateRewind({ ...base, resolutions: probe }) : simulation;

  const steps = planSteps(simulation.paths.values());
  const stepByPath = new Map(steps.map((step) => [step.path, step]));
  const files: PreviewFile[] = [];
  for (const outcome of simulation.paths.values()) {
    const step = stepByPath.get(outcome.path);
    const merged = mergeResult(outcome.resolution === 'merge' ? outcome : mergeProbe.paths.get(outcome.path));
    files.push({
      path: outcome.path,
      status: outcome.status,
      reason: outcome.reason,
      action: !step ? 'none' : step.moveFrom !== null ? 'move' : step.target.exists ? 'write' : 'delete',
      movedFrom: step?.moveFrom ?? null,
      currentHash: outcome.initial.hash,
      expectedHash: outcome.expectedHash,
      targetHash: outcome.blocked ? null : outcome.final.hash,
      targetMode: outcome.blocked ? null : outcome.final.mode,
      checkpointIds: outcome.checkpointIds,
      mergeAvailable: merged !== undefined,
      mergedText: merged ?? null,
      mergePatch: merged === undefined ? null : unifiedPatch(outcome.path, await currentContent(outcome, input), Buffer.from(merged, 'utf8')),
      resolution: outcome.resolution,
    });
  }

  const blockers: string[] = [];
  const undoable = simulation.undone.length;
  // A skipped file's changes are not undone by this rewind: they stay offered to a later one.
  const skippedIds = new Set(files.filter((file) => file.resolution === 'skip').flatMap((file) => file.checkpointIds));
  if (candidates.length === 0) blockers.push(alreadyRewound.length > 0 ? 'every change in range was already rewound' : 'there are no file changes in range');
  else if (files.length > 0 && files.every((file) => file.resolution === 'skip')) blockers.push('every file is skipped: nothing is left to rewind');
  else if (undoable === 0 && files.every((file) => file.status === 'safe'))
    blockers.push('only shell-command changes are in range; pass includeShellChanges to rewind them');
  for (const file of files) {
    if (file.status === 'safe' || file.resolution !== null) continue;
    blockers.push(`${file.path}: ${file.status}${file.reason ? ` (${file.reason})` : ''}${file.mergeAvailable ? '; merge is available' : ''}`);
  }
  const preview: FileRewindPreview = {
    sessionId: input.sessionId,
    target: input.target,
    includeShellChanges: input.includeShellChanges,
    resolutions: { ...input.resolutions },
    checkpointIds: candidates
      .filter((checkpoint) => (input.includeShellChanges || checkpoint.source !== 'exec') && !skippedIds.has(checkpoint.id))
      .map((checkpoint) => checkpoint.id),
    alreadyRewound,
    files,
    shellChanges: simulation.shellChanges,
    canApply: blockers.length === 0,
    blockers,
  };
  return { preview, steps, simulation };
}

/** The bytes on disk the simulation started from; a file known by its hash alone (see `readDisk`) is read from the store. */
async function currentContent(outcome: PathOutcome, input: PreviewInput): Promise<Buffer | null> {
  const { initial } = outcome;
  if (!initial.exists || initial.content !== null || initial.hash === null) return initial.content;
  const read = await input.snapshots.read(initial.hash);
  if (read.ok) return read.content;
  const disk = readDisk(input.workspace, outcome.path);
  return disk.ok ? disk.state.content : null;
}

function mergeResult(outcome: PathOutcome | undefined): string | undefined {
  if (!outcome || outcome.blocked || outcome.resolution !== 'merge' || outcome.final.content === null) return undefined;
  return outcome.final.content?.toString('utf8');
}
