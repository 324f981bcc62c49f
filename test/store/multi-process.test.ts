import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/index.js';

const run = promisify(execFile);
const worker = join(import.meta.dirname, '..', 'fixtures', 'append-worker.ts');

describe('several processes sharing one store file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-multi-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('interleaved appends from four processes all land, and the shared history stays one chain', async () => {
    const path = join(dir, 'store.db');
    const store = await SqliteStore.open({ path });
    const shared = await store.createSession({ title: 'shared' });
    const count = 40;
    const outputs = await Promise.all(
      [0, 1, 2, 3].map(() => run(process.execPath, ['--import', 'tsx', worker, path, shared.id, String(count)], { cwd: process.cwd() })),
    );
    const ownIds = outputs.map((output) => output.stdout.trim());
    for (const id of ownIds) {
      const history = await store.history(id);
      expect(history).toHaveLength(count);
      expect(history.map((message) => message.depth)).toEqual([...Array(count).keys()]);
    }
    const sharedHistory = await store.history(shared.id);
    expect(sharedHistory).toHaveLength(4 * count);
    for (let index = 1; index < sharedHistory.length; index++) expect(sharedHistory[index]!.parentId).toBe(sharedHistory[index - 1]!.id);
    expect(await store.listTreeMessages(shared.treeId)).toHaveLength(4 * count);
    await store.close();
  });
});
