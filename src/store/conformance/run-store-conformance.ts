import { afterEach, beforeEach, describe, it } from 'vitest';
import type { StoreConformanceOptions, StoreHarness } from './conformance-context.js';
import { sessionCases } from './session-cases.js';
import { messageCases } from './message-cases.js';
import { treeCases } from './tree-cases.js';
import { recordCases } from './record-cases.js';
import { blobStorageCases } from './blob-storage-cases.js';
import { writeIntentCases } from './write-intent-cases.js';
import { importCases } from './import-cases.js';

export type ConformanceCase = (harness: () => StoreHarness) => Promise<void>;

/**
 * The behaviour every `Store` backend must show. Each backend's test file calls this once:
 *
 * @example
 * runStoreConformance({ name: 'sqlite', create: async () => { … return { store, reopen, cleanup } } });
 */
export function runStoreConformance(options: StoreConformanceOptions): void {
  const groups: Record<string, Record<string, ConformanceCase>> = {
    sessions: sessionCases,
    messages: messageCases,
    tree: treeCases,
    records: recordCases,
    'blob storage': blobStorageCases,
    'writes in flight': writeIntentCases,
    imports: importCases,
  };
  describe(`Store conformance: ${options.name}`, () => {
    let harness: StoreHarness;
    beforeEach(async () => {
      harness = await options.create();
    });
    afterEach(async () => {
      await harness.cleanup();
    });
    for (const [group, cases] of Object.entries(groups)) {
      describe(group, () => {
        for (const [title, run] of Object.entries(cases)) {
          const reason = options.skip?.[title];
          if (reason) it.skip(`${title} — skipped: ${reason}`, () => {});
          else it(title, () => run(() => harness));
        }
      });
    }
  });
}
