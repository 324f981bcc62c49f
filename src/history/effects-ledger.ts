import { InvalidArgumentError, type Effect, type EffectKind, type JsonValue } from '../model/index.js';
import type { Store } from '../store/store.js';

/** What the ledger knows about an idempotency key in a session. */
export type EffectCheck =
  | { status: 'new' }
  | { status: 'succeeded'; effect: Effect }
  | { status: 'failed'; effect: Effect }
  /** Started but no outcome recorded (the process died mid-call): it may or may not have happened. */
  | { status: 'in_doubt'; effect: Effect };

/**
 * The append-only ledger of external side effects. Tools declare an effect kind:
 * `none`, `workspace` (checkpointed, rewindable) or `external` (recorded here). A rewind never
 * removes an entry — it rewinds the decision, not the world — so re-running a call whose key
 * already succeeded in this session is detected and the runtime decides: skip, ask, or run.
 * A fork starts with an empty ledger of its own.
 */
export class EffectsLedger {
  constructor(private readonly store: Store) {}

  async check(sessionId: string, idempotencyKey: string): Promise<EffectCheck> {
    const rows = (await this.store.listEffects({ sessionId, idempotencyKey })).filter((row) => row.sessionId === sessionId);
    const succeeded = rows.find((row) => row.status === 'succeeded');
    if (succeeded) return { status: 'succeeded', effect: succeeded };
    const last = rows.at(-1);
    if (!last) return { status: 'new' };
    const finished = rows.some((row) => row.status !== 'started' && row.toolCallId === last.toolCallId);
    if (last.status === 'started' && !finished) return { status: 'in_doubt', effect: last };
    return { status: 'failed', effect: rows.filter((row) => row.status === 'failed').at(-1) ?? last };
  }

  /** Record that an external call is about to run. */
  async begin(input: {
    sessionId: string;
    turnId?: string | null;
    toolName: string;
    toolCallId?: string | null;
    idempotencyKey: string;
    kind: EffectKind;
    request?: JsonValue;
  }): Promise<Effect> {
    if (input.kind !== 'external') {
      throw new InvalidArgumentError({
        parameter: 'kind',
        value: input.kind,
        reason: `only external effects are ledgered; ${input.kind === 'workspace' ? 'workspace changes are checkpointed instead' : 'a tool without effects needs no record'}.`,
      });
    }
    const { kind: _kind, ...effect } = input;
    return this.store.appendEffect({ ...effect, status: 'started' });
  }

  succeed(started: Effect, result?: JsonValue): Promise<Effect> {
    return this.finish(started, 'succeeded', result);
  }

  fail(started: Effect, error: JsonValue): Promise<Effect> {
    return this.finish(started, 'failed', error);
  }

  private finish(started: Effect, status: 'succeeded' | 'failed', result: JsonValue | undefined): Promise<Effect> {
    return this.store.appendEffect({
      sessionId: started.sessionId,
      turnId: started.turnId,
      toolName: started.toolName,
      toolCallId: started.toolCallId,
      idempotencyKey: started.idempotencyKey,
      status,
      request: started.request,
      result: result ?? null,
    });
  }
}
