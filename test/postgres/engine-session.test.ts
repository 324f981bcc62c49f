import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runDemo, type DemoResult } from '../../src/cli/commands/demo.js';
import { openWaypoint } from '../../src/engine/index.js';
import { collectGarbage } from '../../src/operations/index.js';
import { SKIP_REASON, dropSchema, freshSchema, postgresAvailable, schemaUrl } from './pg-test-env.js';

/** What a run shows, without the ids, times and directories that differ between two runs. */
function shape(result: DemoResult) {
  return {
    turns: result.turns.map((turn) => ({ input: turn.input, status: turn.status, reply: turn.reply, files: turn.files })),
    preview: result.preview,
    undo: result.undo.files,
    redo: result.redo.files,
    isolated: result.forks.isolated.comparison,
    log: result.log.length,
  };
}

if (postgresAvailable()) {
  describe('the engine on PostgreSQL: a real agent session end to end', () => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });

    it('runs the demo session (tool writes, a shell change, undo with a merge, redo, rewind, forks, a side chat) as on SQLite, then gc keeps every checkpoint readable', async () => {
      const schema = freshSchema();
      const base = mkdtempSync(join(tmpdir(), 'waypoint-pg-engine-'));
      cleanups.push(async () => {
        rmSync(base, { recursive: true, force: true });
        await dropSchema(schema);
      });
      const url = schemaUrl(schema);
      const onSqlite = await runDemo({ dir: join(base, 'sqlite'), print: () => undefined });
      const onPostgres = await runDemo({ dir: join(base, 'postgres'), store: url, print: () => undefined });
      expect(onPostgres.storePath).not.toContain(':waypoint_test@');
      expect(shape(onPostgres)).toEqual(shape(onSqlite));
      expect(onPostgres.turns.length).toBeGreaterThanOrEqual(3);
      // What the isolated fork materialized from the store is on disk, as on SQLite.
      for (const file of onPostgres.forks.isolated.comparison) {
        if (file.state === 'same') {
          expect(readFileSync(join(onPostgres.forks.isolated.dir, file.path), 'utf8')).toBe(readFileSync(join(onSqlite.forks.isolated.dir, file.path), 'utf8'));
        }
      }
      const waypoint = await openWaypoint({ path: url });
      try {
        const sessions = await waypoint.store.listSessions();
        expect(sessions.map((session) => session.kind).sort()).toEqual(['fork', 'fork', 'main', 'side_chat']);
        const report = await collectGarbage({ waypoint });
        expect(report.gc.live).toBeGreaterThan(0);
        expect(report.gc.scanned).toBe(report.gc.live + report.gc.unreachable.length);
        for (const session of sessions) {
          for (const checkpoint of await waypoint.store.listCheckpoints(session.id)) {
            for (const hash of [checkpoint.beforeHash, checkpoint.afterHash]) if (hash && checkpoint.status === 'recorded') await waypoint.blobs.get(hash);
          }
        }
        const history = await waypoint.store.history(onPostgres.sessionId);
        expect(history.length).toBeGreaterThan(0);
      } finally {
        await waypoint.close();
      }
    }, 600_000);
  });
} else {
  describe.skip(`the engine on PostgreSQL — skipped: ${SKIP_REASON}`, () => {});
}
