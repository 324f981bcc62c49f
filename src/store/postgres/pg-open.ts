import type pg from 'pg';
import { StoreError } from '../../model/index.js';
import { PgContext } from './pg-context.js';
import { mapPgFailure } from './pg-failure.js';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from './pg-schema.js';
import type { PostgresLocation } from './pg-url.js';

/** The value of `waypoint_meta.application`: what marks a schema as a Waypoint store. */
export const PG_APPLICATION = 'waypoint';

/**
 * The `pg` driver, loaded on the first PostgreSQL open: a process using an SQLite store (a hook
 * client, the CLI) never loads it.
 */
export async function loadPg(): Promise<typeof pg> {
  return (await import('pg')).default;
}

/** BIGINT columns (timestamps, sizes) come back as numbers, not strings: they stay below 2^53. */
function typesOf(driver: typeof pg): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === 20 ? (value: string) => Number(value) : driver.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
  };
}

export interface PgOpenOptions {
  readOnly: boolean;
  /** Connections this process keeps at most (default 4). */
  maxConnections: number;
  connectTimeoutMs: number;
}

/**
 * Connects and makes sure the schema is a Waypoint store of a version this code understands,
 * changing nothing until it is sure: a schema holding other tables is `NOT_A_WAYPOINT_STORE`, a
 * newer version `STORE_SCHEMA_TOO_NEW`; an empty or older one is migrated in one transaction under
 * an advisory lock (several processes opening a fresh database at once migrate it once). A role
 * that may not write opens the store read-only (`STORE_READ_ONLY` on every write, and on a store
 * that would need creating or migrating).
 */
export async function openPgContext(location: PostgresLocation, options: PgOpenOptions): Promise<PgContext> {
  const driver = await loadPg();
  const pool = new driver.Pool({
    connectionString: location.connectionString,
    max: options.maxConnections,
    connectionTimeoutMillis: options.connectTimeoutMs,
    idleTimeoutMillis: 10_000,
    application_name: 'waypoint',
    options: `-c search_path=${location.schema}`,
    types: typesOf(driver),
  });
  // An idle connection the server closed (a restart) is reported here; the next query reconnects.
  pool.on('error', () => undefined);
  const fail = (error: unknown, operation: string) => mapPgFailure(error, { location: location.redacted, operation });
  try {
    let state = await inspect(pool, location.schema).catch((error) => {
      throw fail(error, 'open the store');
    });
    if (state.version === null) {
      if (state.tables > 0) throw notOurs(location.redacted, location.schema, 'its tables belong to another program');
    } else if (state.application !== PG_APPLICATION) {
      throw notOurs(location.redacted, location.schema, `it is marked as a store of "${state.application}"`);
    }
    const version = state.version ?? 0;
    if (version > PG_SCHEMA_VERSION) {
      throw new StoreError({
        code: 'STORE_SCHEMA_TOO_NEW',
        message: `The store ${location.redacted} has schema version ${version}, newer than this Waypoint understands (${PG_SCHEMA_VERSION}). Upgrade Waypoint to open it.`,
        details: { location: location.redacted, storeVersion: version, supportedVersion: PG_SCHEMA_VERSION },
      });
    }
    if (version < PG_SCHEMA_VERSION) {
      if (options.readOnly || state.readOnlyReason) {
        throw new StoreError({
          code: 'STORE_READ_ONLY',
          message:
            version === 0
              ? `Cannot create the store ${location.redacted}: ${options.readOnly ? 'it was opened read-only' : state.readOnlyReason}. Open it once with a role that may create tables in schema ${location.schema}; nothing was created.`
              : `The store ${location.redacted} needs a schema upgrade (${version} → ${PG_SCHEMA_VERSION}); open it once with a role that may write it.`,
          details: { location: location.redacted, storeVersion: version, supportedVersion: PG_SCHEMA_VERSION },
        });
      }
      await migrate(pool, location.schema).catch((error) => {
        throw fail(error, 'create the store tables');
      });
      state = await inspect(pool, location.schema).catch((error) => {
        throw fail(error, 'open the store');
      });
    }
    const reason = options.readOnly ? 'it was opened read-only' : state.readOnlyReason;
    return new PgContext(pool, location.redacted, location.schema, reason !== null, reason);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}

interface SchemaState {
  /** Tables, views and sequences in the schema. */
  tables: number;
  version: number | null;
  application: string | null;
  /** Why this role cannot write (null: it can). */
  readOnlyReason: string | null;
}

async function inspect(pool: pg.Pool, schema: string): Promise<SchemaState> {
  const [row] = (
    await pool.query<{ tables: number; has_meta: boolean; recovery: boolean; read_only: string; can_create: boolean | null; can_write: boolean | null }>(
      `SELECT
         (SELECT count(*)::int FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')) AS tables,
         to_regclass(quote_ident($1) || '.waypoint_meta') IS NOT NULL AS has_meta,
         pg_is_in_recovery() AS recovery,
         current_setting('transaction_read_only') AS read_only,
         CASE WHEN EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) THEN has_schema_privilege($1, 'CREATE')
              ELSE has_database_privilege(current_database(), 'CREATE') END AS can_create,
         CASE WHEN to_regclass(quote_ident($1) || '.sessions') IS NULL THEN NULL
              ELSE has_table_privilege(quote_ident($1) || '.sessions', 'INSERT, UPDATE, DELETE') END AS can_write`,
      [schema],
    )
  ).rows;
  let version: number | null = null;
  let application: string | null = null;
  if (row!.has_meta) {
    const meta = (await pool.query<{ key: string; value: string }>(`SELECT key, value FROM "${schema}".waypoint_meta`)).rows;
    const get = (key: string) => meta.find((entry) => entry.key === key)?.value ?? null;
    application = get('application');
    version = Number(get('schema_version') ?? 0);
  }
  const readOnlyReason = row!.recovery
    ? 'the server is a read-only standby'
    : row!.read_only === 'on'
      ? 'the session is read-only (default_transaction_read_only)'
      : row!.can_write === false
        ? 'this role may not write its tables'
        : row!.can_write === null && row!.can_create === false
          ? `this role may not create tables in schema ${schema}`
          : null;
  return { tables: row!.tables, version, application, readOnlyReason };
}

async function migrate(pool: pg.Pool, schema: string): Promise<void> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`waypoint:${schema}:migrate`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    // Re-read under the lock: another process may have migrated meanwhile.
    const exists = (await client.query(`SELECT to_regclass('"${schema}".waypoint_meta') IS NOT NULL AS yes`)).rows[0].yes as boolean;
    const current = exists ? Number((await client.query(`SELECT value FROM "${schema}".waypoint_meta WHERE key = 'schema_version'`)).rows[0]?.value ?? 0) : 0;
    for (const migration of PG_MIGRATIONS) {
      if (migration.version <= current) continue;
      await client.query(migration.sql);
      await client.query(
        `INSERT INTO "${schema}".waypoint_meta (key, value) VALUES ('application', $1), ('schema_version', $2)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [PG_APPLICATION, String(migration.version)],
      );
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

function notOurs(location: string, schema: string, reason: string): StoreError {
  return new StoreError({
    code: 'NOT_A_WAYPOINT_STORE',
    message: `Schema ${schema} of ${location} is not a Waypoint store (${reason}). Point --store at a Waypoint database, at an empty one, or pick another schema with ?schema=<name>; nothing was changed.`,
    details: { location, schema, reason },
  });
}
