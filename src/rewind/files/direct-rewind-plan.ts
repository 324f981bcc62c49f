import type { Checkpoint, Session } from '../../model/index.js';
import type { Store } from '../../store/index.js';
import type { Workspace } from '../../workspace/index.js';
import { checkpointsFromMessage, requireUserMessage } from './checkpoint-selection.js';
import { NothingToRewindError, RewindConflictError, RewindOverwritesChangesError, SnapshotMissingError, type ChangedFile } from './errors/index.js';
import type { FileRewindKind, PreviewFile, ShellChange } from './file-rewind-types.js';
import { RewindLedger } from './rewind-ledger.js';
import { computePreview, type ComputedPreview } from './rewind-preview.js';
import type { SnapshotReader } from './snapshot-reader.js';
import type { EarlyWrites } from './early-writes.js';

/**
 * A direct rewind's target: one checkpoint, the newest one not rewound yet, an input's latest
 * change (`message`, `/rewind code`), or every change from an input on (`cascade`).
 */
export type DirectRewindTarget =
  | { kind: 'checkpoint'; checkpointId: string }
  | { kind: 'latest' }
  | { kind: 'message'; messageId: string }
  | { kind: 'cascade'; messageId: string };

/**
 * Which files a direct rewind may overwrite although they changed since the agent wrote them:
 * `true` any, a list only those (workspace keys, `root:path`), `false` none.
 */
export type OverwriteChanged = boolean | readonly string[];

/** What a direct rewind would do, from the same plan its apply runs. Changes nothing. */
export interface DirectRewindPreview {
  sessionId: string;
  target: DirectRewindTarget;
  /** How the rewind is recorded. */
  kind: FileRewindKind;
  /** The checkpoints it undoes, newest first (shell-command changes included: a direct rewind takes them). */
  checkpointIds: string[];
  /** Each file: `external_modified` when it changed since the agent wrote it (`resolution: 'force'` once allowed). */
  files: PreviewFile[];
  shellChanges: ShellChange[];
  /** The files it would overwrite although they changed since the agent wrote them, allowed or not. */
  changed: ChangedFile[];
  /** True when nothing blocks it: every changed file is allowed, every snapshot readable. */
  canApply: boolean;
  blockers: string[];
}

/** A planned direct rewind: the preview, the writes, and whether changed files are allowed. */
export interface DirectPlan extends ComputedPreview {
  direct: DirectRewindPreview;
  /** Changed files the rewind was not allowed to overwrite. */
  refused: ChangedFile[];
}

/**
 * The checkpoints a direct form undoes, newest first. Refused with `NO_CHECKPOINTS` or
 * `NOTHING_TO_REWIND` when there is none left. `ledger`: the session's ledger as the caller read
 * it already (read here otherwise).
 */
export async function selectDirect(
  store: Store,
  session: Session,
  target: DirectRewindTarget,
  ledger?: RewindLedger,
): Promise<{ newestFirst: Checkpoint[]; kind: FileRewindKind }> {
  if (target.kind === 'checkpoint') return { newestFirst: [await store.getCheckpoint(target.checkpointId)], kind: 'checkpoint' };
  const rewound = (ledger ?? (await RewindLedger.load(store, session.id))).rewoundCheckpoints();
  if (target.kind === 'latest') {
    // The newest checkpoints first (an indexed range), more only while all of those are rewound.
    for (let last = 16; ; last *= 8) {
      const newest = await store.listCheckpoints(session.id, { last });
      if (newest.length === 0) throw noCheckpoints(session.id);
      const latest = newest.filter((checkpoint) => !rewound.has(checkpoint.id)).at(-1);
      if (latest) return { newestFirst: [latest], kind: 'checkpoint' };
      if (newest.length < last)
        throw nothingToRewind(`every file change of session ${session.id} is already rewound; redo a rewind to bring changes back`, {
          sessionId: session.id,
        });
    }
  }
  const message = await requireUserMessage(store, session, target.messageId);
  if (target.kind === 'message') {
    const anchored = await store.listCheckpoints(session.id, { anchorMessageId: message.id });
    const latest = anchored.filter((checkpoint) => !rewound.has(checkpoint.id)).at(-1);
    if (!latest)
      throw nothingToRewind(anchored.length ? `every file change of message ${message.id} is already rewound` : `message ${message.id} changed no files`, {
        sessionId: session.id,
        messageId: message.id,
      });
    return { newestFirst: [latest], kind: 'checkpoint' };
  }
  const inRange = await checkpointsFromMessage(store, session, message);
  const pending = inRange.filter((checkpoint) => !rewound.has(checkpoint.id));
  if (pending.length === 0)
    throw nothingToRewind(
      inRange.length ? `every file change since message ${message.id} is already rewound` : `no files changed since message ${message.id}`,
      { sessionId: session.id, messageId: message.id },
    );
  return { newestFirst: pending.reverse(), kind: 'cascade' };
}

/**
 * Plans a direct rewind with the preview's planner: every touched file is put back as it was
 * before the checkpoints (the simulation with `force` for each), and a file whose content changed
 * since the agent wrote it — and that the rewind would really change — is listed in `changed`.
 * Those not allowed by `overwriteChanged` are `refused`, shown `external_modified` without a
 * resolution, and block the preview. A file that already holds what the rewind writes is safe.
 */
export async function planDirect(input: {
  session: Session;
  target: DirectRewindTarget;
  kind: FileRewindKind;
  newestFirst: readonly Checkpoint[];
  workspace: Workspace;
  snapshots: SnapshotReader;
  overwriteChanged: OverwriteChanged;
  /** Temp files to begin while planning, when the plan is about to be applied (see `EarlyWrites`). */
  early?: EarlyWrites | undefined;
}): Promise<DirectPlan> {
  const touched = new Set(input.newestFirst.flatMap((checkpoint) => (checkpoint.toPath === null ? [checkpoint.path] : [checkpoint.path, checkpoint.toPath])));
  const computed = await computePreview({
    sessionId: input.session.id,
    // The checked preview's target names a message or a turn; the direct preview says its own below.
    target: { turnId: '' },
    checkpoints: [...input.newestFirst].reverse(),
    rewound: new Set(),
    includeShellChanges: true,
    resolutions: Object.fromEntries([...touched].map((path) => [path, 'force' as const])),
    workspace: input.workspace,
    snapshots: input.snapshots,
    early: input.early,
  });
  const allowed = (path: string) => input.overwriteChanged === true || (Array.isArray(input.overwriteChanged) && input.overwriteChanged.includes(path));
  const outcomes = computed.simulation.paths;
  const changed: ChangedFile[] = [];
  const files = computed.preview.files.map((file): PreviewFile => {
    const outcome = outcomes.get(file.path);
    if (file.resolution !== 'force' || !outcome) return file;
    const overwrites = outcome.initial.hash !== outcome.final.hash || outcome.initial.exists !== outcome.final.exists;
    if (!overwrites) return { ...file, status: 'safe', reason: null, resolution: null };
    changed.push({
      path: file.path,
      currentHash: file.currentHash,
      expectedHash: file.expectedHash,
      reason: file.reason ?? 'changed since the agent wrote it',
    });
    return allowed(file.path) ? file : { ...file, resolution: null };
  });
  const refused = changed.filter((file) => !allowed(file.path));
  const blockers = [
    ...computed.preview.blockers,
    ...refused.map((file) => `${file.path}: external_modified (${file.reason}); overwritten only when confirmed or forced`),
  ];
  const direct: DirectRewindPreview = {
    sessionId: input.session.id,
    target: input.target,
    kind: input.kind,
    checkpointIds: computed.preview.checkpointIds,
    files: files.map((file) => ({ ...file, mergeAvailable: false, mergedText: null })),
    shellChanges: computed.preview.shellChanges,
    changed,
    canApply: blockers.length === 0,
    blockers,
  };
  return { ...computed, direct, refused };
}

/**
 * Refuses a planned direct rewind that cannot be applied as planned: a snapshot missing or
 * corrupt (`SNAPSHOT_MISSING`), a path that cannot be read or written (`REWIND_CONFLICT`), or a
 * changed file it may not overwrite (`REWIND_OVERWRITES_CHANGES`).
 */
export function refuseUnlessApplicable(plan: DirectPlan, sessionId: string): void {
  const { simulation } = plan;
  const snapshotProblems = simulation.problems.filter((problem) => problem.status !== 'file_read_failed' && problem.code !== 'PATH_BLOCKED');
  if (snapshotProblems.length > 0) {
    throw new SnapshotMissingError({
      snapshots: snapshotProblems.map((problem) => ({
        checkpointId: problem.checkpointId,
        path: problem.path,
        hash: problem.hash,
        reason: problem.reason,
        corrupt: problem.status === 'checkpoint_unreadable',
      })),
    });
  }
  const unreadable = [...simulation.paths.values()].filter((path) => path.blocked);
  if (unreadable.length > 0) {
    throw new RewindConflictError({
      files: unreadable.map((path) => ({ path: path.path, status: path.status, reason: path.reason ?? path.status })),
      hint: 'Move what is at those paths out of the way, then try again.',
    });
  }
  if (plan.refused.length > 0) throw new RewindOverwritesChangesError({ sessionId, files: plan.refused });
}

export function noCheckpoints(sessionId: string): NothingToRewindError {
  return new NothingToRewindError({
    code: 'NO_CHECKPOINTS',
    message: `Session ${sessionId} has no file checkpoints yet, so there is nothing to restore. Checkpoints are recorded when the agent changes files.`,
    details: { sessionId },
  });
}

export function nothingToRewind(why: string, details: Record<string, unknown>): NothingToRewindError {
  return new NothingToRewindError({ code: 'NOTHING_TO_REWIND', message: `Nothing to rewind: ${why}. Nothing was changed.`, details });
}
