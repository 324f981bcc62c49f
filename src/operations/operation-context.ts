import type { Waypoint } from '../engine/index.js';
import type { OperationEvents } from './operation-events.js';
import { TurnRunningError } from './operation-errors.js';

/** Where operations report what they did; the runtime passes its own event bus. */
export interface OperationEventSink {
  emit<Name extends keyof OperationEvents>(name: Name, event: OperationEvents[Name]): void;
}

/**
 * What every operation runs with: the opened engine, where its events go, and who knows whether a
 * turn is running. A one-shot command passes `{ waypoint }` alone (no turn runs in its process).
 *
 * @example
 * const waypoint = await openWaypoint({ path: '/tmp/w/store/waypoint.db' });
 * const result = await rewind({ waypoint }, { sessionId, kind: 'latest' });
 */
export interface OperationContext {
  waypoint: Waypoint;
  events?: OperationEventSink;
  /** True while a turn of `sessionId` runs in this process (the runtime's own bookkeeping). */
  isRunning?: (sessionId: string) => boolean;
}

/** Refuses with `TURN_RUNNING` while a turn of the session runs; nothing is read or written first. */
export function requireIdle(context: OperationContext, sessionId: string, action: string): void {
  if (context.isRunning?.(sessionId)) throw new TurnRunningError({ sessionId, action });
}
