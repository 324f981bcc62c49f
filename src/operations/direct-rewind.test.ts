import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RewindOverwritesChangesError } from '../rewind/index.js';
import { createOperationsFixture, type FixtureTurn, type OperationsFixture } from './fixtures/operations-fixture.js';
import { previewDirectRewind } from './preview-direct-rewind.js';
import { redo } from './redo.js';
import { rewind, type RewindRequest } from './rewind.js';

let fx: OperationsFixture;
let second: FixtureTurn;

beforeEach(async () => {
  fx = await createOperationsFixture();
  await fx.turn('Write a', { 'a.txt': 'a1\n' });
  second = await fx.turn('Change a, write b', { 'a.txt': 'a2\n', 'b.txt': 'b1\n' });
});
afterEach(() => fx.cleanup());

describe('a direct rewind over content changed since the agent wrote it', () => {
  it('is refused in every form that would overwrite it (REWIND_OVERWRITES_CHANGES, nothing changed); the preview says so from the same plan', async () => {
    writeFileSync(join(fx.ws, 'a.txt'), 'mine\n');
    const forms: RewindRequest[] = [
      { sessionId: fx.sessionId, kind: 'checkpoint', checkpointId: second.checkpointIds[0]! },
      { sessionId: fx.sessionId, messageId: second.inputId, scope: 'workspace', cascade: true },
      { sessionId: fx.sessionId, messageId: second.inputId, scope: 'both', cascade: true },
    ];
    for (const request of forms) {
      const preview = await previewDirectRewind({ waypoint: fx.waypoint }, request);
      expect(preview.files!.canApply).toBe(false);
      expect(preview.files!.changed).toEqual([expect.objectContaining({ path: 'workspace:a.txt', expectedHash: expect.any(String) })]);
      expect(preview.files!.files.find((file) => file.path === 'workspace:a.txt')).toMatchObject({ status: 'external_modified', resolution: null });
      const error = (await fx.refused('REWIND_OVERWRITES_CHANGES', (context) => rewind(context, request))) as RewindOverwritesChangesError;
      expect(error.exitCode).toBe(4);
      expect(error.details.files).toEqual(preview.files!.changed);
    }
    expect(fx.read('a.txt')).toBe('mine\n');
  });

  it('a form that touches only files the agent left as they were applies without asking, exactly as previewed', async () => {
    writeFileSync(join(fx.ws, 'a.txt'), 'mine\n');
    // `latest` and `code <input>` take the newest change (b.txt), which nobody touched since.
    for (const request of [
      { sessionId: fx.sessionId, kind: 'latest' },
      { sessionId: fx.sessionId, messageId: second.inputId, scope: 'workspace' },
    ] as RewindRequest[]) {
      const preview = await previewDirectRewind({ waypoint: fx.waypoint }, request);
      expect(preview.files).toMatchObject({ canApply: true, changed: [], checkpointIds: [second.checkpointIds[1]] });
      const result = await rewind({ waypoint: fx.waypoint }, request);
      expect(result.files!.checkpointIds).toEqual(preview.files!.checkpointIds);
      await redo({ waypoint: fx.waypoint }, { sessionId: fx.sessionId, rewindId: result.files!.rewindId! });
    }
    expect(fx.read('a.txt')).toBe('mine\n');
  });

  it('force: [path] overwrites only what it names, force: true any; what was there comes back with redo', async () => {
    writeFileSync(join(fx.ws, 'a.txt'), 'mine\n');
    writeFileSync(join(fx.ws, 'b.txt'), 'mine too\n');
    const cascade = { sessionId: fx.sessionId, messageId: second.inputId, scope: 'workspace', cascade: true } as const;
    const partial = await fx.refused('REWIND_OVERWRITES_CHANGES', (context) => rewind(context, { ...cascade, force: ['a.txt'] }));
    expect((partial.details.files as Array<{ path: string }>).map((file) => file.path)).toEqual(['workspace:b.txt']);
    const forced = await previewDirectRewind({ waypoint: fx.waypoint }, { ...cascade, force: true });
    expect(forced.files).toMatchObject({ canApply: true, blockers: [] });
    expect(forced.files!.files.map((file) => [file.path, file.resolution])).toEqual([
      ['workspace:b.txt', 'force'],
      ['workspace:a.txt', 'force'],
    ]);
    const result = await rewind({ waypoint: fx.waypoint }, { ...cascade, force: ['a.txt', 'workspace:b.txt'] });
    expect(result.files!.files.map((file) => [file.path, file.resolution])).toEqual(forced.files!.files.map((file) => [file.path, file.resolution]));
    expect(fx.read('a.txt')).toBe('a1\n');
    await redo({ waypoint: fx.waypoint }, { sessionId: fx.sessionId, rewindId: result.files!.rewindId! });
    expect([fx.read('a.txt'), fx.read('b.txt')]).toEqual(['mine\n', 'mine too\n']);
  });

  it('a file that already holds what the rewind writes is not an overwrite', async () => {
    writeFileSync(join(fx.ws, 'a.txt'), 'a1\n');
    const request = { sessionId: fx.sessionId, kind: 'checkpoint', checkpointId: second.checkpointIds[0]! } as const;
    const preview = await previewDirectRewind({ waypoint: fx.waypoint }, request);
    expect(preview.files).toMatchObject({ canApply: true, changed: [], files: [{ path: 'workspace:a.txt', status: 'safe', action: 'none' }] });
    await rewind({ waypoint: fx.waypoint }, request);
    expect(fx.read('a.txt')).toBe('a1\n');
  });
});
