// Forks (shared: the parent's files rewound in place; isolated: a new directory, written in and
// then often deleted again), garbage collection, and retention (`trimSessions` over the oldest
// sessions, which are placeholders, and deleting an isolated fork with its directory).
import { rmSync } from 'node:fs';
import { applyToolWrite, deleteSessionWithSubagents, openCaptureContext, trimSessions, type ForkRequest, type Session } from './engine.js';
import { makeContent, sha256 } from './soak-env.js';
import { beginTurn, endTurn, isPlaceholder, logged, type WorkerContext } from './worker-context.js';

/** At most this many shared forks join the pool; after that forks are isolated ones. */
const MAX_SHARED_SESSIONS = 8;

export async function sharedForkOp(context: WorkerContext, session: Session): Promise<void> {
  if ((await context.sharedSessions()).length >= MAX_SHARED_SESSIONS) return isolatedForkOp(context, session);
  const turns = (await context.waypoint.store.listTurns(session.id)).slice(-6);
  const request: ForkRequest =
    turns.length > 0 && context.random.chance(0.5)
      ? { from: 'message', sessionId: session.id, messageId: context.random.pick(turns).userMessageId, confirm: true }
      : { from: 'checkpoint', sessionId: session.id, checkpointId: 'latest', confirm: true };
  if (context.random.chance(0.5)) {
    const preview = await context.forker.previewFork(request).catch(() => null);
    const conflicts = preview?.files?.files.filter((file) => file.status === 'external_modified') ?? [];
    if (conflicts.length > 0) request.resolutions = Object.fromEntries(conflicts.map((file) => [file.path, 'force' as const]));
  }
  await logged(context, `fork-shared-${request.from}`, session, null, [], async () => {
    const result = await context.forker.fork({ ...request, title: `soak shared fork ${context.proc}` });
    return { rewindIds: result.fileRewind?.rewindId ? [result.fileRewind.rewindId] : [], paths: result.fileRewind?.files.map((file) => file.path) ?? [] };
  });
}

/** An isolated fork, a tool write in its own directory, and (most of the time) its deletion. */
export async function isolatedForkOp(context: WorkerContext, session: Session): Promise<void> {
  const child: { session?: Session; dir?: string } = {};
  await logged(context, 'fork-isolated', session, [], [], async () => {
    const result = await context.forker.fork({
      from: 'checkpoint',
      sessionId: session.id,
      checkpointId: 'latest',
      workspace: { mode: 'isolated' },
      title: `soak isolated fork ${context.proc}`,
    });
    child.session = result.session;
    child.dir = result.materialized?.dir;
  });
  if (!child.session || !child.dir) return;
  const forked = child.session;
  const dir = child.dir;
  const path = context.random.pick(context.paths);
  const content = makeContent(context.random, `${context.proc}-iso`);
  // Outside the shared workspace: logged so the content is known, under a path of its own.
  await logged(context, 'isolated-write', forked, [], [{ path: `(isolated)/${path}`, hash: sha256(content) }], async () => {
    const { turnId } = await beginTurn(context, forked, 'work in the fork');
    const capture = await openCaptureContext({ store: context.waypoint.store, blobs: context.waypoint.blobs, sessionId: forked.id, turnId });
    const result = await applyToolWrite(capture, { path, content });
    await endTurn(context, turnId);
    return { checkpointIds: result.checkpoint ? [result.checkpoint.id] : [] };
  });
  if (context.random.chance(0.7)) {
    await logged(context, 'retention-delete-fork', forked, [], [], async () => {
      await deleteSessionWithSubagents(context.waypoint.store, forked.id);
      rmSync(dir, { recursive: true, force: true });
    });
  }
}

export async function gcOp(context: WorkerContext): Promise<void> {
  await logged(context, 'gc', null, [], [], async () => {
    await context.waypoint.blobs.gc();
  });
}

/**
 * `trimSessions` keeping all but the oldest one or two sessions. The oldest are placeholders
 * (created before everything else, with files of their own); the op stops while fewer than 15
 * are left, so sessions created meanwhile never push the trim into a session the soak uses.
 */
export async function retentionOp(context: WorkerContext): Promise<void> {
  const sessions = await context.waypoint.store.listSessions();
  if (sessions.filter(isPlaceholder).length < 15) return gcOp(context);
  const keepSessions = sessions.length - 1 - context.random.int(2);
  await logged(context, 'retention-trim', null, [], [], async () => {
    await trimSessions(context.waypoint.store, { keepSessions });
  });
}
