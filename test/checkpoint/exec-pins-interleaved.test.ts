import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BlobStore } from '../../src/blobs/index.js';
import { pinSnapshot } from '../../src/checkpoint/exec-scan-state.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Snapshot } from '../../src/workspace/index.js';

// Two processes capture commands of one session (two connections to one store here, the order
// the soak caught them in): each pins the contents its scan found new on top of the state it
// loaded, then saves its state. When the second pins after the first and before the first saves,
// the session's latest state is the first's, so every content it names must still be pinned.
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function snapshot(files: Record<string, string>): Snapshot {
  return new Map(Object.entries(files).map(([path, hash]) => [path, { kind: 'file' as const, hash, size: 1, mode: 0o644, mtimeMs: 1, ctimeMs: 1, ino: 1 }]));
}

describe("a session's scan pins written by two captures in turn", () => {
  it('keep what each capture found new, so gc sweeps neither while the other capture saves its state', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'waypoint-exec-pins-'));
    dirs.push(dir);
    const path = join(dir, 'waypoint.db');
    const first = await SqliteStore.open({ path });
    const second = await SqliteStore.open({ path });
    try {
      const blobs = new BlobStore(first);
      const session = await first.createSession({ workdir: dir, title: 'two captures' });
      const [base, seenByFirst, seenBySecond] = await blobs.putMany([
        Buffer.from('base\n'),
        Buffer.from('a save the first saw\n'),
        Buffer.from('a save the second saw\n'),
      ]);
      // The state both loaded: the base pinned whole.
      await pinSnapshot(first, session.id, snapshot({ 'workspace:a': base! }), null, []);
      await pinSnapshot(first, session.id, snapshot({ 'workspace:a': seenByFirst! }), [], [seenByFirst!]);
      await pinSnapshot(second, session.id, snapshot({ 'workspace:b': seenBySecond! }), [], [seenBySecond!]);
      const report = await blobs.gc();
      expect(report.unreachable).not.toContain(seenByFirst);
      expect((await blobs.get(seenByFirst!)).toString()).toBe('a save the first saw\n');
      expect((await blobs.get(seenBySecond!)).toString()).toBe('a save the second saw\n');
    } finally {
      await second.close();
      await first.close();
    }
  });
});
