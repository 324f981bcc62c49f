import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyRewind, forkSession, previewRewind, redo, rewind } from '../../src/operations/index.js';
import { buildGitHistory, random, removeHistory, type HistoryOptions } from './git-history.js';
import { commitTree, directoryTree, treeDifferences } from './git-tree.js';
import { openReplay, type TurnMode } from './replay-driver.js';

// A git history built with git itself is replayed commit by commit, each commit one agent turn
// (tool writes through the checkpointed file system, or a shell command captured by scans), and
// git's trees are the oracle for the workspace after every turn, the undo of that turn (its
// parent), the redo, a cascade back to an earlier turn, a reopened store and isolated forks.

const MODES: readonly TurnMode[] = ['tool', 'checkout', 'apply'];

interface ReplayChecks {
  /** Undo and redo every turn (checked preview + apply, then redo). */
  undoEveryTurn?: boolean;
  /** Turns to cascade back to (each followed by a redo to the end). */
  cascadeTo?: number[];
  /** Turns to fork an isolated workspace at. */
  forkAt?: number[];
}

async function replayHistory(options: HistoryOptions, checks: ReplayChecks): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'waypoint-replay-'));
  const history = buildGitHistory(dir, options);
  const replay = await openReplay(dir, history);
  const context = () => ({ waypoint: replay.waypoint });
  const skip = new Set(Object.keys(history.untracked));
  const pickMode = random(options.seed ^ 0x5eed);
  const where = (step: string) => `seed ${options.seed}, ${step}`;
  const expectCommit = (dirPath: string, index: number, step: string) => {
    const differences = treeDifferences(commitTree(history.repo, history.commits[index]!), directoryTree(dirPath, skip));
    expect(differences, `${where(step)}: the files should be commit ${index}'s tree`).toEqual([]);
  };
  /** Runs one step; an error it throws names the seed and the step. */
  const at = async <T>(step: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (error instanceof Error && !error.message.startsWith('seed ')) error.message = `${where(step)}: ${error.message}`;
      throw error;
    }
  };
  try {
    for (let index = 1; index <= options.commits; index++) {
      const mode = MODES[Math.floor(pickMode() * MODES.length)]!;
      const step = `turn ${index} (${mode})`;
      const turn = await at(step, () => replay.turn(mode));
      expectCommit(replay.ws, index, step);
      if (!checks.undoEveryTurn) continue;
      const preview = await at(`${step} undo preview`, () =>
        previewRewind(context(), { sessionId: replay.sessionId, messageId: turn.inputId, includeShellChanges: true }),
      );
      expect(
        preview.canApply,
        `${where(`${step} undo preview`)}: ${preview.blockers.join('; ')} ${JSON.stringify(preview.files.filter((file) => file.status !== 'safe'))}`,
      ).toBe(true);
      const undone = await at(`${step} undo`, () => applyRewind(context(), { sessionId: replay.sessionId, preview, scope: 'both' }));
      expectCommit(replay.ws, index - 1, `${step} undone`);
      await at(`${step} redo`, () => redo(context(), { sessionId: replay.sessionId, rewindId: undone.files!.rewindId!, conversation: true }));
      expectCommit(replay.ws, index, `${step} redone`);
    }
    await replay.reopen();
    expectCommit(replay.ws, options.commits, 'after reopening the store');
    for (const k of checks.forkAt ?? []) {
      const forked = await at(`isolated fork at turn ${k}`, () =>
        forkSession(context(), { from: 'message', sessionId: replay.sessionId, messageId: replay.turns[k - 1]!.replyId, workspace: { mode: 'isolated' } }),
      );
      expectCommit(forked.workdir!, k, `isolated fork at turn ${k}`);
      expectCommit(replay.ws, options.commits, `the parent after the isolated fork at turn ${k}`);
    }
    for (const k of checks.cascadeTo ?? []) {
      const undone = await at(`cascade back to turn ${k}`, () =>
        rewind(context(), { sessionId: replay.sessionId, messageId: replay.turns[k]!.inputId, scope: 'both', cascade: true }),
      );
      expectCommit(replay.ws, k, `cascade back to turn ${k}`);
      await replay.reopen();
      expectCommit(replay.ws, k, `cascade back to turn ${k}, reopened`);
      await at(`redo of the cascade back to turn ${k}`, () =>
        redo(context(), { sessionId: replay.sessionId, rewindId: undone.files!.rewindId!, conversation: true }),
      );
      expectCommit(replay.ws, options.commits, `redo of the cascade back to turn ${k}`);
    }
  } finally {
    await replay.close();
    removeHistory(dir);
  }
}

describe('replay of a git history through Waypoint, checked against git trees', () => {
  it('replay without symlinks: every turn, its undo and redo, cascades and a reopened store match git', async () => {
    await replayHistory({ seed: 12, commits: 36, files: 30 }, { undoEveryTurn: true, cascadeTo: [8, 24] });
  });

  it('isolated fork: a fork at turn k holds commit k’s tree, the parent untouched', async () => {
    await replayHistory({ seed: 7, commits: 24, files: 25 }, { forkAt: [5, 16, 24] });
  });

  it('symlinks: created, retargeted, replaced by a file and back, deleted — every turn, undo, redo and cascade', async () => {
    await replayHistory({ seed: 21, commits: 32, files: 25, symlinks: true }, { undoEveryTurn: true, cascadeTo: [8, 20] });
  });

  it('nested .gitignore: a directory the root ignores, un-ignored by a nested file, is tracked as git tracks it', async () => {
    await replayHistory({ seed: 33, commits: 26, files: 20, nestedNegation: true }, { undoEveryTurn: true, cascadeTo: [5] });
  });

  it('force-added: files under ignored paths that git tracks are checkpointed and rewound', async () => {
    await replayHistory({ seed: 44, commits: 24, files: 20, forceAdded: true }, { undoEveryTurn: true, cascadeTo: [5] });
  });

  it('isolated fork of a history with symlinks, a nested un-ignore and force-added files holds commit k’s tree', async () => {
    await replayHistory({ seed: 55, commits: 24, files: 20, symlinks: true, forceAdded: true, nestedNegation: true }, { forkAt: [6, 18] });
  });
});
