import { describe } from 'vitest';
import { runStoreConformance } from '../../src/store/conformance/index.js';
import { PostgresStore, type Store } from '../../src/store/index.js';
import { SKIP_REASON, dropSchema, freshSchema, postgresAvailable, schemaUrl } from './pg-test-env.js';

if (postgresAvailable()) {
  runStoreConformance({
    name: 'postgres',
    async create() {
      const schema = freshSchema();
      const url = schemaUrl(schema);
      let store: Store = await PostgresStore.open({ url });
      return {
        get store() {
          return store;
        },
        async reopen() {
          await store.close();
          store = await PostgresStore.open({ url });
          return store;
        },
        async cleanup() {
          await store.close();
          await dropSchema(schema);
        },
      };
    },
  });
} else {
  describe.skip(`Store conformance: postgres — skipped: ${SKIP_REASON}`, () => {});
}
