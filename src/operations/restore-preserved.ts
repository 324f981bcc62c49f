import { z } from 'zod';
import { sessionWorkspace } from '../checkpoint/index.js';
import { ConflictError, InvalidArgumentError, parseInput, WaypointError } from '../model/index.js';
import { listPreserved, restorePreserved as putBackPreserved, type PreservedSave, type RewoundFile } from '../rewind/index.js';
import { requireIdle, type OperationContext } from './operation-context.js';
import { Id, requireWorkspace, resolutionKeys } from './session-checks.js';

/**
 * Put back a save a refused rewind kept aside (listed by `rewindStatus` as `preserved`). `id` is the
 * rewind that kept it (its `jnl_…` id) or the save's content hash (a prefix of at least 6 hex
 * digits); `path` (`src/a.ts` or `root:path`) picks one when the rewind kept several.
 */
export const RestorePreservedRequest = z
  .object({
    sessionId: Id,
    id: Id,
    path: z.string().min(1).optional(),
  })
  .strict();
export type RestorePreservedRequest = z.input<typeof RestorePreservedRequest>;

/** What a restore of a kept-aside save did: a new file rewind (kind `preserved`) that `redo` undoes. */
export interface RestorePreservedResult {
  type: 'preserved';
  sessionId: string;
  /** The new rewind that put the save back (redo it to undo the restore). */
  rewindId: string;
  /** The save put back. */
  restored: PreservedSave;
  files: RewoundFile[];
}

/**
 * Puts a kept-aside save back at its path, journaled like every rewind (what the path holds now is
 * kept; `redo` with the returned `rewindId` brings it back). Refused while a turn runs
 * (`TURN_RUNNING`); `PRESERVED_NOT_FOUND` (exit 3) when no kept-aside save of the session matches,
 * `PRESERVED_AMBIGUOUS` (exit 2) when several do, `PRESERVED_ALREADY_RESTORED` (exit 4) for one put
 * back before, `REWIND_CONFLICT` when the path changed meanwhile; a refusal changes nothing. Emits
 * `rewind` after the commit.
 *
 * @example
 * const [kept] = (await rewindStatus({ waypoint }, { sessionId })).preserved;
 * if (kept) await restorePreserved({ waypoint }, { sessionId, id: kept.hash.slice(0, 12) });
 */
export async function restorePreserved(context: OperationContext, request: RestorePreservedRequest): Promise<RestorePreservedResult> {
  const input = parseInput(RestorePreservedRequest, request, 'request');
  requireIdle(context, input.sessionId, 'restore a kept-aside save');
  const { store, blobs } = context.waypoint;
  const session = await store.getSession(input.sessionId);
  const saves = await listPreserved(store, session.id);
  const path = input.path === undefined ? undefined : Object.keys(resolutionKeys(session, { [input.path]: 'force' as const }))[0];
  const id = input.id.toLowerCase();
  const matches = saves.filter(
    (save) => (save.rewindId === input.id || (/^[0-9a-f]{6,64}$/.test(id) && save.hash.startsWith(id))) && (path === undefined || save.path === path),
  );
  const listing = `the session's kept-aside saves are listed by \`waypoint rewind ${session.id} status\``;
  if (matches.length === 0)
    throw new WaypointError({
      code: 'PRESERVED_NOT_FOUND',
      message: `Session ${session.id} kept no save aside matching "${input.id}"${path ? ` at ${path}` : ''}; ${listing} (a rewind id or a content hash of 6+ hex digits).`,
      details: { sessionId: session.id, id: input.id, ...(path ? { path } : {}) },
      exitCode: 3,
      httpStatus: 404,
    });
  const open = matches.filter((save) => !save.restored);
  if (open.length === 0)
    throw new ConflictError({
      code: 'PRESERVED_ALREADY_RESTORED',
      message: `The save kept aside as "${input.id}" was put back already (${listing}). Nothing was changed.`,
      details: { sessionId: session.id, id: input.id },
    });
  const distinct = new Map(open.map((save) => [`${save.rewindId}\n${save.path}`, save]));
  if (distinct.size > 1)
    throw new InvalidArgumentError({
      code: 'PRESERVED_AMBIGUOUS',
      parameter: 'id',
      value: input.id,
      reason: `it matches ${distinct.size} kept-aside saves (${[...distinct.values()].map((save) => `${save.path} ${save.hash.slice(0, 12)} in ${save.rewindId}`).join('; ')}); give the path too, or a longer hash.`,
    });
  const save = [...distinct.values()][0]!;
  requireWorkspace(session);
  const done = await putBackPreserved({
    store,
    blobs,
    workspace: sessionWorkspace(session, store.location),
    sessionId: session.id,
    rewindId: save.rewindId,
    path: save.path,
  });
  const result: RestorePreservedResult = {
    type: 'preserved',
    sessionId: session.id,
    rewindId: done.rewindId,
    restored: { ...save, restored: true },
    files: done.files,
  };
  context.events?.emit('rewind', { sessionId: session.id, session: await store.getSession(session.id), result: null, kind: 'rewind' });
  return result;
}
