import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { exportSession } from '../../src/operations/index.js';
import { cli, familySnapshot, killAfter, seeded, sessionIds } from './transfer-harness.js';

const SEED = Number(process.env.WAYPOINT_TEST_SEED ?? 20261202);
const TRIALS = 4;

/** A session whose import takes a while: 300 files of 24 KiB of random bytes, one turn. */
async function bigSession(storePath: string): Promise<string> {
  const waypoint = await openWaypoint({ path: storePath });
  try {
    const session = await waypoint.history.createSession({ title: 'big', workdir: '/nowhere' });
    const input = await waypoint.history.append(session.id, { role: 'user', parts: [{ type: 'text', text: 'write many files' }] });
    const turn = await waypoint.store.createTurn({ sessionId: session.id, userMessageId: input.id });
    const hashes = await waypoint.blobs.putMany(Array.from({ length: 300 }, () => randomBytes(24 * 1024)));
    await waypoint.store.addCheckpoints(
      hashes.map((hash, index) => ({
        sessionId: session.id,
        turnId: turn.id,
        op: 'create' as const,
        path: `f${index}.bin`,
        beforeHash: null,
        afterHash: hash,
        source: 'tool' as const,
      })),
    );
    await waypoint.history.append(session.id, { role: 'assistant', turnId: turn.id, parts: [{ type: 'text', text: 'done' }] });
    await waypoint.store.updateTurn(turn.id, { status: 'complete', endedAt: Date.now() });
    return session.id;
  } finally {
    await waypoint.close();
  }
}

describe('an import killed with SIGKILL at a random instant', { timeout: 1_200_000 }, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-import-kill-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves the target with none of the session or all of it; the next import completes it', async () => {
    const source = join(dir, 'a', 'waypoint.db');
    const sessionId = await bigSession(source);
    const file = join(dir, 'big.wpx');
    const waypoint = await openWaypoint({ path: source });
    try {
      await exportSession({ waypoint }, { sessionId, to: file });
    } finally {
      await waypoint.close();
    }
    const expected = await familySnapshot(source, sessionId);

    // How long a whole import takes here, so the kills land before, during and after it.
    const started = Date.now();
    expect(cli(['import', file, '--store', join(dir, 'scratch', 'waypoint.db')]).code).toBe(0);
    const duration = Date.now() - started;
    const random = seeded(SEED);
    console.log(`import-kill: seed ${SEED} (WAYPOINT_TEST_SEED), one import took ${duration} ms`);

    const outcomes: string[] = [];
    let target = '';
    for (let trial = 0; trial < TRIALS; trial++) {
      // A fresh target each time, so every kill lands on an import that has not happened yet.
      target = join(dir, `b-${trial}`, 'waypoint.db');
      const delay = Math.floor(random() * duration);
      const ended = await killAfter(['import', file, '--store', target], delay);
      const ids = await sessionIds(target).catch(() => []);
      outcomes.push(`${delay} ms: ${ended.signal ?? `exit ${ended.code}`}, ${ids.length ? 'whole session' : 'nothing'}`);
      if (ids.length > 0) {
        expect(ids).toEqual([sessionId]);
        expect(await familySnapshot(target, sessionId)).toEqual(expected);
      }
    }
    console.log(`import-kill outcomes: ${outcomes.join('; ')}`);
    // The last target, killed or not, is completed by one more import.
    const last = cli(['import', file, '--store', target, '--json']);
    expect(last.code, last.stderr).toBe(0);
    expect(await familySnapshot(target, sessionId)).toEqual(expected);
    expect(cli(['import', file, '--store', target, '--json']).json()).toMatchObject({ alreadyImported: true });
  });
});
