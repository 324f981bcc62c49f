// File rewinds of a shared session: direct (one checkpoint, latest), cascade, a turn rollback, the
// checked preview/apply with `force` and `merge` resolutions, and redo of an applied rewind.
import type { ConflictResolution, FileRewindPreview, FileRewindResult, Session } from './engine.js';
import { sha256 } from './soak-env.js';
import type { Intent } from './soak-log.js';
import { logged, type WorkerContext } from './worker-context.js';

const rewound = (result: FileRewindResult) => ({
  rewindIds: result.rewindId ? [result.rewindId] : [],
  paths: result.files.map((file) => file.path),
});

async function recentTurns(context: WorkerContext, session: Session) {
  return (await context.waypoint.store.listTurns(session.id)).slice(-6);
}

export async function rewindOp(context: WorkerContext, session: Session): Promise<void> {
  const files = context.waypoint.files;
  const kind = context.random.weighted({ latest: 3, checkpoint: 2, cascade: 2, rollback: 1 });
  if (kind === 'latest') {
    await logged(context, 'rewind-latest', session, null, [], async () => rewound(await files.restoreLatest(session.id)));
  } else if (kind === 'checkpoint') {
    const recent = await context.waypoint.store.listCheckpoints(session.id, { last: 12 });
    if (recent.length === 0) return;
    const checkpoint = context.random.pick(recent);
    await logged(context, 'rewind-checkpoint', session, null, [], async () => rewound(await files.restoreCheckpoint(checkpoint.id)));
  } else {
    const turns = await recentTurns(context, session);
    if (turns.length === 0) return;
    const turn = context.random.pick(turns);
    if (kind === 'cascade') {
      await logged(context, 'rewind-cascade', session, null, [], async () => rewound(await files.cascade(session.id, turn.userMessageId)));
    } else {
      await logged(context, 'rewind-turn', session, null, [], async () => rewound(await files.rollbackTurn(turn.id)));
    }
  }
}

/**
 * Preview, choose a way past each conflict (`merge` where it applies cleanly, else `force`; now
 * and then none, to be refused), then apply. A merge writes text nobody typed: its hash is logged
 * before the apply, like every other writer's.
 */
export async function checkedRewindOp(context: WorkerContext, session: Session): Promise<void> {
  const turns = await recentTurns(context, session);
  if (turns.length === 0) return;
  const messageId = context.random.pick(turns).userMessageId;
  const includeShellChanges = context.random.chance(0.5);
  const files = context.waypoint.files;
  const seen: { preview?: FileRewindPreview } = {};
  await logged(context, 'rewind-preview', session, [], [], async () => {
    seen.preview = await files.preview({ sessionId: session.id, messageId, includeShellChanges });
  });
  if (!seen.preview) return;
  const resolutions: Record<string, ConflictResolution> = {};
  for (const file of seen.preview.files.filter((candidate) => candidate.status === 'external_modified')) {
    if (context.random.chance(0.15)) continue;
    resolutions[file.path] = file.mergeAvailable && context.random.chance(0.6) ? 'merge' : 'force';
  }
  let chosen = seen.preview;
  if (Object.keys(resolutions).length > 0) {
    const resolved = await files.preview({ sessionId: session.id, messageId, includeShellChanges, resolutions }).catch(() => null);
    if (resolved === null) return;
    chosen = resolved;
  }
  const intents: Intent[] = chosen.files
    .filter((file) => file.resolution === 'merge' && file.mergedText !== null)
    .map((file) => ({ path: file.path.slice(file.path.indexOf(':') + 1), hash: sha256(file.mergedText!) }));
  const applying = chosen;
  const used = [...new Set(chosen.files.flatMap((file) => (file.resolution ? [file.resolution] : [])))].sort();
  await logged(context, ['rewind-apply', ...used].join('+'), session, null, intents, async () => rewound(await files.apply(applying)));
}

/** Redoes one of the session's recent rewinds that was not redone yet, with `force` half the time. */
export async function redoOp(context: WorkerContext, session: Session): Promise<void> {
  const candidates = (await context.waypoint.files.listRewinds(session.id)).filter((rewind) => !rewind.redone).slice(-5);
  if (candidates.length === 0) return;
  const rewind = context.random.pick(candidates);
  const resolutions = context.random.chance(0.5) ? Object.fromEntries(rewind.files.map((file) => [file.path, 'force' as const])) : undefined;
  await logged(context, resolutions ? 'redo+force' : 'redo', session, null, [], async () =>
    rewound(await context.waypoint.files.redo(session.id, rewind.rewindId, resolutions ? { resolutions } : {})),
  );
}
