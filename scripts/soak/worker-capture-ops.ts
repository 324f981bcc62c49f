// The agent's own file changes: Write/Edit tool calls (`applyToolWrite`/`applyToolEdit`) and shell
// commands that create, overwrite, move and delete files under `captureExec`, each inside a turn.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyToolEdit, applyToolWrite, captureExec, openCaptureContext, type CaptureContext, type Session } from './engine.js';
import { makeContent, markerOf, sha256, sleep, tryLock, unlock } from './soak-env.js';
import type { Intent } from './soak-log.js';
import { beginTurn, endTurn, logged, type WorkerContext } from './worker-context.js';

async function openTurnContext(context: WorkerContext, session: Session, text: string): Promise<{ capture: CaptureContext; turnId: string }> {
  const { turnId } = await beginTurn(context, session, text);
  const capture = await openCaptureContext({ store: context.waypoint.store, blobs: context.waypoint.blobs, sessionId: session.id, turnId });
  return { capture, turnId };
}

/** A turn of one to three Write/Edit calls. */
export async function toolTurn(context: WorkerContext, session: Session): Promise<void> {
  let turn: { capture: CaptureContext; turnId: string } | null = null;
  await logged(context, 'turn-start', session, [], [], async () => {
    turn = await openTurnContext(context, session, 'write some files');
  });
  if (turn === null) return;
  const { capture, turnId } = turn;
  for (let call = 1 + context.random.int(3); call > 0; call--) {
    const path = context.random.pick(context.paths);
    const marker = editableMarker(context, path);
    if (marker !== null && context.random.chance(0.35)) {
      const edit = { old: marker, new: context.random.token() };
      await logged(context, 'tool-edit', session, [path], [{ path, hash: 'any', edit }], async () => {
        const result = await applyToolEdit(capture, { path, oldString: `#m:${edit.old}\n`, newString: `#m:${edit.new}\n`, toolCallId: `call_${edit.new}` });
        return { checkpointIds: result.checkpoint ? [result.checkpoint.id] : [] };
      });
    } else {
      const content = makeContent(context.random, context.proc);
      await logged(context, 'tool-write', session, [path], [{ path, hash: sha256(content) }], async () => {
        const result = await applyToolWrite(capture, { path, content, toolCallId: `call_${markerOf(content)}` });
        return { checkpointIds: result.checkpoint ? [result.checkpoint.id] : [] };
      });
    }
  }
  await logged(context, 'turn-end', session, [], [], () => endTurn(context, turnId));
}

function editableMarker(context: WorkerContext, path: string): string | null {
  try {
    return markerOf(readFileSync(join(context.layout.work, path), 'utf8'));
  } catch {
    return null;
  }
}

/**
 * A turn running one shell command of two to four steps (printf over a file in place, rm, mv,
 * cp) under `captureExec`. The command's paths are locked against the person for the whole
 * capture: a save the person makes between the scans could not be told apart from the
 * command's own change, so the soak keeps the two apart.
 */
export async function shellTurn(context: WorkerContext, session: Session): Promise<void> {
  const steps: string[] = [];
  const intents: Intent[] = [];
  const touched: string[] = [];
  for (let step = 2 + context.random.int(3); step > 0; step--) {
    const path = context.random.pick(context.paths);
    const other = context.random.pick(context.paths.filter((candidate) => candidate !== path));
    const kind = context.random.weighted({ printf: 5, rm: 2, mv: 2, cp: 1 });
    if (kind === 'printf') {
      const content = makeContent(context.random, `${context.proc}-sh`);
      steps.push(`printf '%s' '${content}' > '${path}'`);
      // Written in place: the file is empty for a moment first.
      intents.push({ path, hash: sha256('') }, { path, hash: sha256(content) });
      touched.push(path);
    } else if (kind === 'rm') {
      steps.push(`rm -f '${path}'`);
      intents.push({ path, hash: null });
      touched.push(path);
    } else {
      steps.push(`if [ -f '${path}' ]; then ${kind === 'mv' ? 'mv -f' : 'cp -f'} '${path}' '${other}'; fi`);
      intents.push({ path: other, hash: 'any' });
      if (kind === 'mv') intents.push({ path, hash: null });
      touched.push(path, other);
    }
  }
  const script = `mkdir -p dir && ${steps.join(' && ')}`;
  let locked = false;
  for (let attempt = 0; attempt < 40 && !locked; attempt++) {
    locked = tryLock(context.layout, touched, context.proc);
    if (!locked) await sleep(2);
  }
  if (!locked) return;
  try {
    let turn: { capture: CaptureContext; turnId: string } | null = null;
    await logged(context, 'turn-start', session, [], [], async () => {
      turn = await openTurnContext(context, session, 'run a command');
    });
    if (turn === null) return;
    const { capture, turnId } = turn;
    await logged(context, 'shell', session, [...new Set(touched)], intents, async () => {
      const { capture: result } = await captureExec(capture, () => run(script, context.layout.work), { toolName: 'Bash', command: script });
      return { checkpointIds: result.checkpoints.map((checkpoint) => checkpoint.id) };
    });
    await logged(context, 'turn-end', session, [], [], () => endTurn(context, turnId));
  } finally {
    unlock(context.layout, touched);
  }
}

/** Runs the command; its own failure (a file another process just moved …) is its exit code, not an error of the capture. */
function run(script: string, cwd: string): Promise<number> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', script], { cwd }, (error) => resolve(error ? (typeof error.code === 'number' ? error.code : 1) : 0));
  });
}
