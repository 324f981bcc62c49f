import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOperationsFixture, type OperationsFixture } from './fixtures/operations-fixture.js';
import { rewindStatus } from './rewind-status.js';
import { sweepLeftovers } from './sweep-leftovers.js';

let fx: OperationsFixture;

beforeEach(async () => {
  fx = await createOperationsFixture();
  await fx.turn('Write a', { 'a.txt': 'a1\n' });
  writeFileSync(join(fx.ws, '.a.txt.0123456789ab.wp-old'), 'a before a killed rewind\n');
});
afterEach(() => fx.cleanup());

describe('sweepLeftovers', () => {
  it('the example: a dry run first, then the sweep; what went is listed by rewindStatus as kept aside', async () => {
    const { waypoint } = fx;
    const sessionId = fx.sessionId;
    const preview = await sweepLeftovers({ waypoint }, { sessionId, dryRun: true, minAgeMs: 0 });
    expect(preview.swept.map((item) => item.path)).toEqual(['workspace:.a.txt.0123456789ab.wp-old']);
    expect(existsSync(join(fx.ws, '.a.txt.0123456789ab.wp-old'))).toBe(true);
    if (preview.swept.length) await sweepLeftovers({ waypoint }, { sessionId, minAgeMs: 0 });
    expect(existsSync(join(fx.ws, '.a.txt.0123456789ab.wp-old'))).toBe(false);
    const status = await rewindStatus({ waypoint }, { sessionId });
    expect(status.preserved.map((save) => [save.path, save.hash])).toEqual([['workspace:a.txt', preview.swept[0]!.hash]]);
  });

  it('by default a leftover younger than an hour stays', async () => {
    const report = await sweepLeftovers({ waypoint: fx.waypoint }, { sessionId: fx.sessionId });
    expect(report.kept.map((item) => item.reason)).toEqual(['recent']);
    expect(report.minAgeMs).toBe(60 * 60 * 1000);
  });

  it('refuses bad input and a running turn, changing nothing', async () => {
    await fx.refused('INVALID_ARGUMENT', (context) => sweepLeftovers(context, { sessionId: fx.sessionId, minAgeMs: -1 }));
    await fx.refused('INVALID_ARGUMENT', (context) => sweepLeftovers(context, { sessionId: fx.sessionId, everything: true } as never));
    await fx.refused('SESSION_NOT_FOUND', (context) => sweepLeftovers(context, { sessionId: 'ses_missing', minAgeMs: 0 }));
    await fx.refused('TURN_RUNNING', (context) => sweepLeftovers(context, { sessionId: fx.sessionId, minAgeMs: 0 }), { running: true });
  });
});
