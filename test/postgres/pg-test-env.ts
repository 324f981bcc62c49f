import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { it } from 'vitest';

/**
 * The PostgreSQL server the tests use: `$WAYPOINT_TEST_POSTGRES_URL` (`.ci/run` starts a server and
 * sets it). Without it the PostgreSQL tests skip, saying why — except in CI (`$CI` set), where a
 * missing server fails them instead of letting them pass unseen.
 */
export const POSTGRES_TEST_URL = process.env.WAYPOINT_TEST_POSTGRES_URL?.trim() || null;

export const SKIP_REASON = 'no PostgreSQL server: set WAYPOINT_TEST_POSTGRES_URL=postgres://user:password@host/db (.ci/run does)';

/** Whether the PostgreSQL tests run here; in CI without a server, a failing test says what is missing. */
export function postgresAvailable(): boolean {
  if (POSTGRES_TEST_URL) return true;
  if (process.env.CI) {
    it('needs a PostgreSQL server in CI', () => {
      throw new Error(`CI is set but ${SKIP_REASON}`);
    });
  }
  return false;
}

/** A new, unused schema name: one store each, dropped by `dropSchema`. */
export function freshSchema(prefix = 'wpt'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** The test server's URL pointing at `schema`. */
export function schemaUrl(schema: string, base: string = POSTGRES_TEST_URL!): string {
  const url = new URL(base);
  url.searchParams.set('schema', schema);
  return url.toString();
}

/** Runs SQL on the test server as the test role (schema setup, cleanup, fault injection). */
export async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: POSTGRES_TEST_URL! });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  await adminQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

const ROOT = resolve(import.meta.dirname, '..', '..');

/** `node` arguments that run a TypeScript file of this repository from any working directory. */
export function tsNode(file: string, ...args: string[]): string[] {
  return ['--import', pathToFileURL(resolve(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href, file, ...args];
}

/** The `waypoint` CLI, run from source. */
export const CLI = resolve(import.meta.dirname, 'fixtures', 'cli.ts');
