import type pg from 'pg';
import type { StoreChange } from '../store.js';
import type { PgContext } from './pg-context.js';
import { loadPg } from './pg-open.js';

/** The channel a store's changes are announced on: one per schema, so stores sharing a database stay apart. */
export function changeChannel(schema: string): string {
  return `waypoint_changes_${schema}`.slice(0, 63);
}

/**
 * Listens on the store's channel over a connection of its own (outside the pool) and calls
 * `listener` with each changed session. A lost connection is opened again (backing off up to 5 s);
 * since notifications sent meanwhile are lost, the first one after a reconnect is
 * `{ sessionId: null }`: anything may have changed.
 */
export async function listenForChanges(context: PgContext, listener: (change: StoreChange) => void): Promise<() => Promise<void>> {
  const channel = changeChannel(context.schema);
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;
  const connect = async (): Promise<void> => {
    const next = new (await loadPg()).Client(context.pool.options as pg.ClientConfig);
    next.on('notification', (message) => {
      if (message.channel === channel) listener({ sessionId: message.payload || null });
    });
    next.on('error', () => undefined);
    next.on('end', () => {
      if (stopped || client !== next) return;
      client = null;
      schedule(250);
    });
    await next.connect();
    await next.query(`LISTEN "${channel.replaceAll('"', '""')}"`);
    client = next;
  };
  const schedule = (delay: number) => {
    retry = setTimeout(() => {
      retry = null;
      connect().then(
        () => listener({ sessionId: null }),
        () => schedule(Math.min(delay * 2, 5_000)),
      );
    }, delay);
    retry.unref();
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => undefined);
    client = null;
  };
}
