import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { PG_SCHEMA_VERSION, PostgresStore } from '../../src/store/index.js';
import { expectCode } from '../../src/store/conformance/index.js';
import { CLI, POSTGRES_TEST_URL, SKIP_REASON, tsNode, adminQuery, dropSchema, freshSchema, postgresAvailable, schemaUrl } from './pg-test-env.js';

function tablesOf(schema: string) {
  return adminQuery<{ relname: string }>(
    "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY 1",
    [schema],
  ).then((rows) => rows.map((row) => row.relname));
}

if (postgresAvailable()) {
  describe('opening a PostgreSQL store: refusals change nothing', () => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });

    function schema(): string {
      const name = freshSchema();
      cleanups.push(() => dropSchema(name));
      return name;
    }

    it('a schema holding another program’s tables is NOT_A_WAYPOINT_STORE and stays as it was', async () => {
      const name = schema();
      await adminQuery(`CREATE SCHEMA ${name}; CREATE TABLE ${name}.invoices (id int)`);
      await expectCode(PostgresStore.open({ url: schemaUrl(name) }), 'NOT_A_WAYPOINT_STORE');
      expect(await tablesOf(name)).toEqual(['invoices']);
    });

    it('a store of a newer schema version is STORE_SCHEMA_TOO_NEW, untouched', async () => {
      const name = schema();
      await (await PostgresStore.open({ url: schemaUrl(name) })).close();
      await adminQuery(`UPDATE ${name}.waypoint_meta SET value = '${PG_SCHEMA_VERSION + 1}' WHERE key = 'schema_version'`);
      const error = await expectCode(PostgresStore.open({ url: schemaUrl(name) }), 'STORE_SCHEMA_TOO_NEW');
      expect(error.details).toMatchObject({ storeVersion: PG_SCHEMA_VERSION + 1, supportedVersion: PG_SCHEMA_VERSION });
      expect((await adminQuery(`SELECT value FROM ${name}.waypoint_meta WHERE key = 'schema_version'`))[0]!.value).toBe(String(PG_SCHEMA_VERSION + 1));
    });

    it('a role that may only read opens the store read-only: reads work, every write is STORE_READ_ONLY; it cannot create one', async () => {
      const name = freshSchema();
      const empty = freshSchema();
      const role = freshSchema('wpt_ro');
      cleanups.push(async () => {
        await adminQuery(`DROP SCHEMA IF EXISTS ${name} CASCADE; DROP SCHEMA IF EXISTS ${empty} CASCADE; DROP ROLE IF EXISTS ${role}`);
      });
      const writer = await PostgresStore.open({ url: schemaUrl(name) });
      const session = await writer.createSession({ title: 'Kept' });
      await writer.close();
      await adminQuery(
        `CREATE ROLE ${role} LOGIN PASSWORD 'ro-secret'; GRANT USAGE ON SCHEMA ${name} TO ${role}; GRANT SELECT ON ALL TABLES IN SCHEMA ${name} TO ${role}`,
      );
      const url = new URL(schemaUrl(name));
      url.username = role;
      url.password = 'ro-secret';
      const reader = await PostgresStore.open({ url: url.toString() });
      try {
        expect(reader.readOnly).toBe(true);
        expect((await reader.getSession(session.id)).title).toBe('Kept');
        const error = await expectCode(reader.setTitle(session.id, 'Changed'), 'STORE_READ_ONLY');
        expect(error.message).not.toContain('ro-secret');
        await expectCode(reader.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'x' }] }), 'STORE_READ_ONLY');
      } finally {
        await reader.close();
      }
      expect((await adminQuery(`SELECT title FROM ${name}.sessions`))[0]!.title).toBe('Kept');
      await adminQuery(`CREATE SCHEMA ${empty}; GRANT USAGE ON SCHEMA ${empty} TO ${role}`);
      url.searchParams.set('schema', empty);
      await expectCode(PostgresStore.open({ url: url.toString() }), 'STORE_READ_ONLY');
      expect(await tablesOf(empty)).toEqual([]);
    });

    it('a wrong password or an unreachable server is STORE_UNAVAILABLE, and the password is never in the message', async () => {
      const wrong = new URL(POSTGRES_TEST_URL!);
      wrong.password = 'not-the-Password-42';
      const error = await expectCode(PostgresStore.open({ url: wrong.toString() }), 'STORE_UNAVAILABLE');
      expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain('not-the-Password-42');
      const nowhere = await expectCode(PostgresStore.open({ url: 'postgres://u:hidden-pw@127.0.0.1:1/db', connectTimeoutMs: 2000 }), 'STORE_UNAVAILABLE');
      expect(nowhere.message).toContain('postgres://u:***@127.0.0.1:1/db');
      expect(nowhere.message).not.toContain('hidden-pw');
    });

    it('openWaypoint opens a postgres:// URL as a PostgreSQL store and refuses any other URL, creating nothing', async () => {
      const name = schema();
      const waypoint = await openWaypoint({ path: schemaUrl(name) });
      try {
        expect(waypoint.store.capabilities.backend).toBe('postgres');
        expect(waypoint.store.location).not.toContain(`:${new URL(POSTGRES_TEST_URL!).password}@`);
      } finally {
        await waypoint.close();
      }
      const cwd = mkdtempSync(join(tmpdir(), 'waypoint-url-'));
      cleanups.push(async () => rmSync(cwd, { recursive: true, force: true }));
      const before = process.cwd();
      process.chdir(cwd);
      try {
        const error = await expectCode(openWaypoint({ path: 'mysql://me:top-secret@db.example/app' }), 'STORE_URL_UNSUPPORTED');
        expect(error.message).not.toContain('top-secret');
      } finally {
        process.chdir(before);
      }
      expect(readdirSync(cwd)).toEqual([]);
    });

    it('the CLI takes --store postgres://… and $WAYPOINT_STORE, never makes a file named after the URL, and never prints the password', async () => {
      const name = schema();
      const store = await PostgresStore.open({ url: schemaUrl(name) });
      const session = await store.createSession({ title: 'Listed' });
      await store.close();
      const cwd = mkdtempSync(join(tmpdir(), 'waypoint-cli-url-'));
      cleanups.push(async () => rmSync(cwd, { recursive: true, force: true }));
      const password = new URL(POSTGRES_TEST_URL!).password;
      const cli = (args: string[], env: Record<string, string> = {}) =>
        spawnSync(process.execPath, tsNode(CLI, ...args), {
          cwd,
          env: { PATH: process.env.PATH ?? '', HOME: cwd, WAYPOINT_HOME: join(cwd, 'home'), ...env },
          encoding: 'utf8',
          timeout: 120_000,
        });
      const flag = cli(['sessions', '--json', '--store', schemaUrl(name)]);
      expect(flag.status).toBe(0);
      expect(JSON.parse(flag.stdout).sessions.map((row: { id: string }) => row.id)).toEqual([session.id]);
      expect(flag.stdout + flag.stderr).not.toContain(`:${password}@`);
      const fromEnv = cli(['sessions', '--json'], { WAYPOINT_STORE: schemaUrl(name) });
      expect(JSON.parse(fromEnv.stdout).sessions.map((row: { id: string }) => row.id)).toEqual([session.id]);
      const refused = cli(['sessions', '--json', '--store', 'mongodb://admin:hunter2@db.example/app']);
      expect(refused.status).not.toBe(0);
      expect(JSON.parse(refused.stdout).error.code).toBe('STORE_URL_UNSUPPORTED');
      expect(refused.stdout + refused.stderr).not.toContain('hunter2');
      const down = cli(['sessions', '--store', 'postgres://admin:hunter2@127.0.0.1:1/app']);
      expect(down.status).toBe(5);
      expect(down.stderr).toContain('cannot be used right now');
      expect(down.stdout + down.stderr).not.toContain('hunter2');
      expect(readdirSync(cwd)).toEqual([]);
    }, 600_000);
  });
} else {
  describe.skip(`opening a PostgreSQL store — skipped: ${SKIP_REASON}`, () => {});
}
