import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CheckpointedFs, captureExec, openCaptureContext } from '../../src/checkpoint/index.js';
import { openWaypoint, type Waypoint } from '../../src/engine/index.js';
import { pinTurnBoundary } from '../../src/fork/index.js';
import { git, type GitHistory } from './git-history.js';

/** How a commit reaches the workspace: tool writes through the checkpointed file system, or a shell command inside a scan. */
export type TurnMode = 'tool' | 'checkout' | 'apply';

export interface ReplayedTurn {
  commit: string;
  mode: TurnMode;
  inputId: string;
  replyId: string;
}

/** One change of `git diff-tree --raw -M`: status letter, modes, blob ids, path (and the rename's destination). */
export interface RawChange {
  status: string;
  oldMode: string;
  newMode: string;
  oldSha: string;
  newSha: string;
  path: string;
  toPath: string | null;
}

export function rawChanges(repo: string, from: string, to: string): RawChange[] {
  const fields = git(repo, ['diff-tree', '-r', '-M', '-z', '--raw', from, to]).toString('utf8').split('\0');
  const changes: RawChange[] = [];
  for (let index = 0; index < fields.length - 1; ) {
    const [oldMode, newMode, oldSha, newSha, status] = fields[index++]!.slice(1).split(' ');
    const path = fields[index++]!;
    const renamed = status!.startsWith('R') || status!.startsWith('C');
    changes.push({
      status: status![0]!,
      oldMode: oldMode!,
      newMode: newMode!,
      oldSha: oldSha!,
      newSha: newSha!,
      path,
      toPath: renamed ? fields[index++]! : null,
    });
  }
  return changes;
}

/**
 * A Waypoint store and a workspace that is a git clone of `history` at its first commit, with one
 * session "Replay" in it; `turn` replays the next commit as one agent turn.
 */
export async function openReplay(dir: string, history: GitHistory) {
  const ws = join(dir, 'ws');
  execFileSync('git', ['clone', '-q', '--no-checkout', history.repo, ws]);
  git(ws, ['checkout', '-q', '--detach', history.commits[0]!]);
  for (const [path, content] of Object.entries(history.untracked)) {
    mkdirSync(dirname(join(ws, path)), { recursive: true });
    writeFileSync(join(ws, path), content);
  }
  const storePath = join(dir, 'store', 'w.db');
  let waypoint: Waypoint = await openWaypoint({ path: storePath });
  const session = await waypoint.history.createSession({ title: 'Replay', workdir: ws });
  const turns: ReplayedTurn[] = [];

  /** Replays `history.commits[turns.length + 1]` as one complete turn, the way `mode` says. */
  async function turn(mode: TurnMode): Promise<ReplayedTurn> {
    const parent = history.commits[turns.length]!;
    const commit = history.commits[turns.length + 1]!;
    const { store, blobs } = waypoint;
    const input = await waypoint.history.append(session.id, { role: 'user', parts: [{ type: 'text', text: `replay ${commit} by ${mode}` }] });
    const created = await store.createTurn({ sessionId: session.id, userMessageId: input.id });
    const capture = await openCaptureContext({ store, blobs, sessionId: session.id, turnId: created.id });
    const shell = (script: string) => captureExec(capture, () => execFileSync('sh', ['-c', script], { cwd: ws, stdio: 'pipe' }), { command: script });
    if (mode === 'checkout') {
      // The workspace holds the parent's tree: point git's index at it, then check the commit out.
      await shell(`git reset -q --mixed ${parent} && git checkout -q -f --detach ${commit}`);
    } else if (mode === 'apply') {
      await shell(`git diff --binary ${parent} ${commit} | git apply --whitespace=nowarn`);
    } else {
      await toolTurn(new CheckpointedFs(capture), rawChanges(history.repo, parent, commit), shell);
    }
    const reply = await waypoint.history.append(session.id, { role: 'assistant', turnId: created.id, parts: [{ type: 'text', text: `replayed ${commit}` }] });
    await pinTurnBoundary(store, created.id);
    await store.updateTurn(created.id, { status: 'complete', endedAt: Date.now() });
    const replayed = { commit, mode, inputId: input.id, replyId: reply.id };
    turns.push(replayed);
    return replayed;
  }

  /**
   * The commit's changes as an agent's tools make them: deletes, renames, writes (with the mode)
   * through the checkpointed file system; links, which it has no call for, by `ln -s` in a scan.
   */
  async function toolTurn(fs: CheckpointedFs, changes: RawChange[], shell: (script: string) => Promise<unknown>): Promise<void> {
    const content = (sha: string) => git(history.repo, ['cat-file', 'blob', sha]);
    const links: string[] = [];
    // Deletes first (a type change removes the old kind), so a rename or a new file may take the name.
    for (const change of changes) if (change.status === 'D' || change.status === 'T') await fs.deleteFile(change.path);
    for (const change of changes) {
      if (change.status === 'D') continue;
      const path = change.toPath ?? change.path;
      if (change.status === 'R') await fs.rename(change.path, path);
      const unchanged = change.status === 'R' && change.oldSha === change.newSha && change.oldMode === change.newMode;
      if (unchanged) continue;
      if (change.newMode === '120000') links.push(`mkdir -p '${dirname(path)}' && ln -sfn '${content(change.newSha).toString('utf8')}' '${path}'`);
      else await fs.writeFile(path, content(change.newSha), { mode: change.newMode === '100755' ? 0o755 : 0o644 });
    }
    if (links.length > 0) await shell(links.join(' && '));
  }

  return {
    dir,
    ws,
    storePath,
    sessionId: session.id,
    history,
    turns,
    turn,
    get waypoint() {
      return waypoint;
    },
    /** Closes the store and opens it again (recovery runs, as in a new process). */
    async reopen() {
      await waypoint.close();
      waypoint = await openWaypoint({ path: storePath });
    },
    async close() {
      await waypoint.close();
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Replay = Awaited<ReturnType<typeof openReplay>>;
