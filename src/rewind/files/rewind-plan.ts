import { isLinkMode, sameMode, type ResolvedPath } from '../../workspace/index.js';
import type { ContentState } from './disk-state.js';
import type { ConflictResolution } from './file-rewind-types.js';
import type { PathOutcome } from './rewind-simulation.js';

/** One path a rewind writes: from what is on disk now to the target content. */
export interface PlannedStep {
  path: string;
  resolved: ResolvedPath;
  expected: ContentState;
  target: ContentState;
  /** Take the file from this path with one rename (its content is the target's). */
  moveFrom: string | null;
  resolution: ConflictResolution | null;
  /**
   * A directory is at the path now: these directories (it and those inside it, deepest first)
   * are removed, empty by then, just before the file is written. Null when nothing is in the way.
   */
  replacesDirectories?: string[] | null;
}

/** Whether a path's simulated end state differs from what is on disk. */
export function needsWrite(outcome: Pick<PathOutcome, 'initial' | 'final'>): boolean {
  const { initial, final } = outcome;
  if (initial.hash !== final.hash || initial.exists !== final.exists) return true;
  if (final.exists && isLinkMode(final.mode) !== isLinkMode(initial.mode)) return true;
  return final.exists && final.mode !== null && !sameMode(final.mode, initial.mode);
}

/**
 * The writes that take every unblocked path from disk to its simulated end state. A file that
 * leaves one path and reappears at another with the same content is moved back with one rename
 * (falling back to write + delete when the rename fails); moves run first.
 */
export function planSteps(outcomes: Iterable<PathOutcome>): PlannedStep[] {
  const steps: PlannedStep[] = [];
  for (const outcome of outcomes) {
    if (outcome.blocked || outcome.resolved === null || !needsWrite(outcome)) continue;
    steps.push({
      path: outcome.path,
      resolved: outcome.resolved,
      expected: outcome.initial,
      target: outcome.final,
      moveFrom: null,
      // A skipped path is blocked, so it is never planned.
      resolution: outcome.resolution === 'skip' ? null : outcome.resolution,
      replacesDirectories: outcome.directoryInWay && outcome.final.exists ? outcome.directoryInWay.directories : null,
    });
  }
  pairMoves(steps);
  return [...steps.filter((step) => step.moveFrom !== null), ...steps.filter((step) => step.moveFrom === null)];
}

/**
 * The order an apply runs steps in (reports keep the plan's order): moves back first, then deletes, deepest paths first, then writes,
 * shallowest first — so a file that gives way to a directory is gone before a file is written
 * inside it, and a directory is emptied before a file takes its place.
 */
export function orderSteps(steps: readonly PlannedStep[]): PlannedStep[] {
  const depth = (step: PlannedStep) => step.path.split('/').length;
  const moves = steps.filter((step) => step.moveFrom !== null);
  const deletes = steps.filter((step) => step.moveFrom === null && !step.target.exists).sort((a, b) => depth(b) - depth(a));
  const writes = steps.filter((step) => step.moveFrom === null && step.target.exists).sort((a, b) => depth(a) - depth(b));
  return [...moves, ...deletes, ...writes];
}

/** Marks `A ← B` when A appears with exactly the content B loses. */
export function pairMoves(steps: PlannedStep[]): void {
  const sources = steps.filter((step) => step.expected.exists && !step.target.exists);
  const used = new Set<string>();
  for (const step of steps) {
    // A directory in the way goes only once the files in it are deleted, after every move.
    if (step.expected.exists || !step.target.exists || (step.replacesDirectories?.length ?? 0) > 0) continue;
    const source = sources.find(
      (candidate) =>
        !used.has(candidate.path) && candidate.expected.hash === step.target.hash && isLinkMode(candidate.expected.mode) === isLinkMode(step.target.mode),
    );
    if (!source) continue;
    used.add(source.path);
    step.moveFrom = source.path;
  }
}
