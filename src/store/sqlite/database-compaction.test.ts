import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from './sqlite-store.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const fileBytes = (path: string) => statSync(path).size + (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0);

describe('compactDatabase: free pages go back to the file system', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-vacuum-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('shrinks the file after rows were deleted, keeping what stays; does nothing when little is free', async () => {
    const path = join(dir, 'w.db');
    const store = await SqliteStore.open({ path });
    try {
      const kept = Array.from({ length: 50 }, (_, index) => sha(`kept ${index}`));
      await store.setBlobPins('kept', kept);
      expect(await store.compactDatabase()).toEqual({ freedBytes: 0 });
      for (let owner = 0; owner < 40; owner++) {
        await store.setBlobPins(
          `owner ${owner}`,
          Array.from({ length: 400 }, (_, index) => sha(`${owner} ${index}`)),
        );
      }
      for (let owner = 0; owner < 40; owner++) await store.setBlobPins(`owner ${owner}`, []);
      const before = fileBytes(path);
      const { freedBytes } = await store.compactDatabase();
      expect(freedBytes).toBeGreaterThan(400 * 1024);
      expect(fileBytes(path)).toBeLessThan(before - 400 * 1024);
      expect([...(await store.blobRoots())].sort()).toEqual([...kept].sort());
    } finally {
      await store.close();
    }
  });
});
