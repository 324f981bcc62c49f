import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { WaypointError } from '../../src/model/index.js';
import { exportSession, forkSession, importSession } from '../../src/operations/index.js';
import { createCliFixture, type CliFixture } from '../cli/cli-harness.js';
import { dropSchema, freshSchema, postgresAvailable, schemaUrl, SKIP_REASON } from '../postgres/pg-test-env.js';
import { familySnapshot } from './transfer-harness.js';

const available = postgresAvailable();

describe.skipIf(!available)(`export / import between SQLite and PostgreSQL${available ? '' : ` — skipped: ${SKIP_REASON}`}`, { timeout: 600_000 }, () => {
  let fixture: CliFixture;
  let schema: string;
  let url: string;
  beforeEach(async () => {
    fixture = await createCliFixture();
    schema = freshSchema('wpx');
    url = schemaUrl(schema);
    const waypoint = await openWaypoint({ path: fixture.storePath });
    try {
      await forkSession({ waypoint }, { from: 'side-chat', sessionId: fixture.sessionId });
    } finally {
      await waypoint.close();
    }
  });
  afterEach(async () => {
    fixture.cleanup();
    await dropSchema(schema);
  });

  it('SQLite → PostgreSQL → SQLite keeps every record and blob; copying again is a no-op; a differing record is refused', async () => {
    const source = await openWaypoint({ path: fixture.storePath });
    try {
      const copied = await exportSession({ waypoint: source }, { sessionId: fixture.sessionId, family: true, to: url });
      expect(copied).toMatchObject({ to: 'store', alreadyImported: false, records: { inserted: { sessions: 2, checkpoints: 5 } } });
      expect(copied.to === 'store' && copied.location).not.toContain('waypoint_test@');
      const again = await exportSession({ waypoint: source }, { sessionId: fixture.sessionId, family: true, to: url });
      expect(again).toMatchObject({ alreadyImported: true });
    } finally {
      await source.close();
    }
    const expected = await familySnapshot(fixture.storePath, fixture.sessionId);
    expect(await familySnapshot(url, fixture.sessionId)).toEqual(expected);

    const back = join(fixture.dir, 'machine-c', 'waypoint.db');
    const target = await openWaypoint({ path: back });
    try {
      const report = await importSession({ waypoint: target }, { from: url, sessionId: fixture.sessionId, family: true });
      expect(report).toMatchObject({ alreadyImported: false, records: { inserted: { sessions: 2 } } });
    } finally {
      await target.close();
    }
    expect(await familySnapshot(back, fixture.sessionId)).toEqual(expected);

    // The copy on PostgreSQL goes on; copying the old state over it is refused, PostgreSQL unchanged.
    const shared = await openWaypoint({ path: url });
    try {
      await shared.history.append(fixture.sessionId, { role: 'user', parts: [{ type: 'text', text: 'continued on the server' }] });
    } finally {
      await shared.close();
    }
    const before = await familySnapshot(url, fixture.sessionId);
    const stale = await openWaypoint({ path: back });
    try {
      const refusal = await exportSession({ waypoint: stale }, { sessionId: fixture.sessionId, family: true, to: url }).catch((error: unknown) => error);
      expect(WaypointError.is(refusal, 'IMPORT_CONFLICT')).toBe(true);
    } finally {
      await stale.close();
    }
    expect(await familySnapshot(url, fixture.sessionId)).toEqual(before);
  });
});
