import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runtimeFixture, type RuntimeFixture } from './runtime-fixture.js';

let fixture: RuntimeFixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

it('a background command that deletes an ignored file and creates a name that is not UTF-8: both reported on its turn and recorded as skipped', async () => {
  fixture = await runtimeFixture([
    { toolCalls: [{ toolName: 'bash', input: { command: `rm .env; printf x > $'bad\\xff'`, background: true } }] },
    { text: 'Started.' },
  ]);
  const { workdir, runtime, waypoint } = fixture;
  writeFileSync(join(workdir, '.gitignore'), '.env\n');
  writeFileSync(join(workdir, '.env'), 'SECRET=1\n');
  const session = await runtime.startSession({ workdir });
  const result = await runtime.runTurn(session.id, 'Clean up in the background');
  await runtime.settleBackground();
  expect(existsSync(join(workdir, '.env'))).toBe(false);
  const turn = await waypoint.store.getTurn(result.turn.id);
  expect(turn.metadata.partiallyProtected).toBe(true);
  expect(turn.metadata.uncovered).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ path: 'workspace:.env', reason: 'ignored', detail: expect.stringContaining('deleted') }),
      expect.objectContaining({ path: 'workspace:bad\\xff', reason: 'invalid_name', detail: expect.stringContaining('created') }),
    ]),
  );
  const rows = (await waypoint.store.listCheckpoints(session.id)).map((row) => [row.op, row.path, row.status, row.skipReason]);
  expect(rows).toEqual(
    expect.arrayContaining([
      ['delete', 'workspace:.env', 'skipped', 'ignored'],
      ['create', 'workspace:bad\\xff', 'skipped', 'invalid_name'],
    ]),
  );
});
