import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runStoreConformance } from '../conformance/index.js';
import type { Store } from '../store.js';
import { SqliteStore } from './sqlite-store.js';

runStoreConformance({
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'waypoint-store-'));
    const path = join(dir, 'store.db');
    let store: Store = await SqliteStore.open({ path });
    return {
      get store() {
        return store;
      },
      async reopen() {
        await store.close();
        store = await SqliteStore.open({ path });
        return store;
      },
      async cleanup() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
