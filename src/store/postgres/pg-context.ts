import type pg from 'pg';
import { StoreError } from '../../model/index.js';
import { RETRYABLE, codeOf, mapPgFailure } from './pg-failure.js';

/** A connection inside a transaction (or the pool, for single statements). */
export type Sql = Pick<pg.PoolClient, 'query'>;

/** How many times a transaction that lost a serialization or deadlock race runs again. */
const RETRIES = 4;

/**
 * The pool with the one way to write: `write` runs a callback in one transaction on one pooled
 * connection, retries it when PostgreSQL picked it as the loser of a deadlock or serialization
 * race (the callback only touches the database, so running it again is safe), and maps failures
 * to typed errors. Every name it gives is the redacted location.
 */
export class PgContext {
  closed = false;

  constructor(
    readonly pool: pg.Pool,
    /** The redacted URL. */
    readonly location: string,
    readonly schema: string,
    readonly readOnly: boolean,
    readonly readOnlyReason: string | null,
  ) {}

  /** Run `fn` in one read-write transaction. */
  async write<T>(operation: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    this.assertOpen();
    if (this.readOnly) {
      throw new StoreError({
        code: 'STORE_READ_ONLY',
        message: `Cannot ${operation}: the store ${this.location} is read-only (${this.readOnlyReason ?? 'opened read-only'}).`,
        details: { location: this.location, operation, reason: this.readOnlyReason },
      });
    }
    return this.transaction(operation, 'BEGIN', fn);
  }

  /** Run several reads in one consistent snapshot. */
  async read<T>(operation: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.transaction(operation, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', fn);
  }

  /** One statement outside a transaction (its own snapshot). */
  async query<R extends pg.QueryResultRow>(operation: string, text: string, values: unknown[] = []): Promise<R[]> {
    this.assertOpen();
    const client = await this.connect(operation);
    try {
      return (await client.query<R>(text, values)).rows;
    } catch (error) {
      throw mapPgFailure(error, { location: this.location, operation });
    } finally {
      client.done();
    }
  }

  assertOpen(): void {
    if (this.closed) {
      throw new StoreError({ code: 'STORE_CLOSED', message: `The store ${this.location} is closed.`, details: { location: this.location } });
    }
  }

  private async transaction<T>(operation: string, begin: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.connect(operation);
      let committing = false;
      try {
        await client.query(begin);
        const result = await fn(client);
        committing = true;
        await client.query('COMMIT');
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          // The connection is gone (server restart, cut): the server rolled back; drop the client.
          client.broken ??= rollbackError as Error;
        }
        if (RETRYABLE.has(codeOf(error)) && attempt < RETRIES) {
          await new Promise((resolve) => setTimeout(resolve, 5 * 2 ** attempt * (0.5 + Math.random())));
          continue;
        }
        // A connection that broke during COMMIT leaves the outcome unknown: the server may have committed before it could answer.
        throw mapPgFailure(error, { location: this.location, operation, ...(committing ? { commitInFlight: true } : {}) });
      } finally {
        client.done();
      }
    }
  }

  /**
   * A pooled connection with an error listener for as long as it is checked out: a connection the
   * server drops (a restart, a cut) then fails the query in flight instead of crashing the
   * process, and is discarded rather than returned to the pool.
   */
  private async connect(operation: string): Promise<pg.PoolClient & { broken?: Error; done(): void }> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw mapPgFailure(error, { location: this.location, operation });
    }
    const held = client as pg.PoolClient & { broken?: Error; done(): void };
    const onError = (error: Error) => {
      held.broken ??= error;
    };
    client.on('error', onError);
    held.done = () => {
      client.off('error', onError);
      client.release(held.broken);
    };
    return held;
  }
}

/**
 * Takes the store's blob-reference lock in shared mode for this transaction: every transaction
 * that adds a reference to a blob (a checkpoint, a pin, a write intent, a journal, a part) holds
 * it, so a sweep, which takes it exclusively, sees every such reference committed before it reads
 * the roots, and none is added between that read and its deletions.
 */
export async function shareRootsLock(sql: Sql, schema: string): Promise<void> {
  await sql.query('SELECT pg_advisory_xact_lock_shared(hashtext($1))', [`waypoint:${schema}:blob-roots`]);
}

export async function exclusiveRootsLock(sql: Sql, schema: string): Promise<void> {
  await sql.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`waypoint:${schema}:blob-roots`]);
}
