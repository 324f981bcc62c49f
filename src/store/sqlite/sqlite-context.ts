import type Database from 'better-sqlite3';
import { StoreError } from '../../model/index.js';
import { mapStoreFailure } from './store-failure.js';

/**
 * The database handle with a prepared-statement cache and the one way to write: a synchronous
 * `BEGIN IMMEDIATE` transaction (async callbacks cannot run inside one), with SQLite failures
 * mapped to typed errors.
 */
export class SqliteContext {
  private readonly statements = new Map<string, Database.Statement>();
  closed = false;

  constructor(
    readonly db: Database.Database,
    readonly path: string,
    readonly readOnly: boolean,
    /** Why the store is read-only, for error messages. */
    readonly readOnlyReason: string | null = null,
  ) {}

  statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Run `fn` in one immediate write transaction. */
  write<T>(operation: string, fn: () => T): T {
    this.assertOpen();
    if (this.readOnly) {
      throw new StoreError({
        code: 'STORE_READ_ONLY',
        message: `Cannot ${operation}: the store ${this.path} is read-only (${this.readOnlyReason ?? 'opened read-only'}).`,
        details: { path: this.path, operation, reason: this.readOnlyReason },
      });
    }
    try {
      return this.db.transaction(fn).immediate();
    } catch (error) {
      throw this.mapError(error, operation);
    }
  }

  /** Run a read in a consistent snapshot. */
  read<T>(operation: string, fn: () => T): T {
    this.assertOpen();
    try {
      return this.db.transaction(fn).deferred();
    } catch (error) {
      throw this.mapError(error, operation);
    }
  }

  assertOpen(): void {
    if (this.closed) {
      throw new StoreError({ code: 'STORE_CLOSED', message: `The store ${this.path} is closed.`, details: { path: this.path } });
    }
  }

  mapError(error: unknown, operation: string): unknown {
    return mapStoreFailure(error, { path: this.path, operation });
  }
}
