// What a worker's operations share: the opened engine, the seeded random source, the log, and
// `logged`, which wraps one operation in its start and end records.
import { type SessionForker, WaypointError, type Session, type Waypoint } from './engine.js';
import { PLACEHOLDER_TITLE, type Random, type SoakLayout } from './soak-env.js';
import type { Intent, SoakLog } from './soak-log.js';

export interface WorkerContext {
  waypoint: Waypoint;
  forker: SessionForker;
  layout: SoakLayout;
  random: Random;
  log: SoakLog;
  proc: string;
  paths: string[];
  /** Sessions working in the shared workspace (the base sessions and their shared forks). */
  sharedSessions(): Promise<Session[]>;
}

/** What an operation reports back for the oracle (records it made, paths it touched). */
export interface OperationResult {
  checkpointIds?: string[];
  rewindIds?: string[];
  paths?: string[];
  recovered?: string[];
  preserved?: Array<{ path: string; hash: string }>;
}

let operations = 0;

/**
 * Runs one operation between its log records: `start` (with what it is about to write) before,
 * `end` with the outcome after. A typed `WaypointError` is a refusal (counted by code); anything
 * else a failure the report lists.
 */
export async function logged(
  context: Pick<WorkerContext, 'log' | 'proc'>,
  op: string,
  session: Session | null,
  paths: string[] | null,
  intents: Intent[],
  run: () => Promise<OperationResult | void>,
): Promise<'ok' | 'refused' | 'failed'> {
  const id = `${context.proc}-${++operations}`;
  context.log.write({ type: 'start', id, op, session: session?.id ?? null, paths, intents });
  try {
    const result = (await run()) ?? {};
    context.log.write({ type: 'end', id, outcome: 'ok', ...result });
    return 'ok';
  } catch (error) {
    if (WaypointError.is(error)) {
      context.log.write({ type: 'end', id, outcome: 'refused', code: error.code, message: error.message.slice(0, 300) });
      return 'refused';
    }
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    context.log.write({ type: 'end', id, outcome: 'failed', message: message.slice(0, 500) });
    return 'failed';
  }
}

/** Starts a turn the way the runtime does: the user's input message, then the turn. */
export async function beginTurn(context: WorkerContext, session: Session, text: string): Promise<{ turnId: string; messageId: string }> {
  const { message } = await context.waypoint.store.appendMessage({ sessionId: session.id, role: 'user', kind: 'input', parts: [{ type: 'text', text }] });
  const turn = await context.waypoint.store.createTurn({
    sessionId: session.id,
    userMessageId: message.id,
    metadata: { pid: process.pid, proc: context.proc },
  });
  return { turnId: turn.id, messageId: message.id };
}

export async function endTurn(context: WorkerContext, turnId: string): Promise<void> {
  await context.waypoint.store.updateTurn(turnId, { status: 'complete', endedAt: Date.now() });
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Marks the running turns of killed workers interrupted (as the runtime's resume does), so forks
 * of those sessions are not refused forever for a turn nobody runs.
 */
export async function closeDeadTurns(context: WorkerContext): Promise<void> {
  for (const session of await context.sharedSessions()) {
    for (const turn of await context.waypoint.store.listTurns(session.id, { status: 'running' })) {
      const pid = turn.metadata.pid;
      if (typeof pid === 'number' && !alive(pid)) await context.waypoint.store.updateTurn(turn.id, { status: 'interrupted', endedAt: Date.now() });
    }
  }
}

export const isPlaceholder = (session: Session): boolean => session.title.startsWith(PLACEHOLDER_TITLE);
