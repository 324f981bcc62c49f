import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCaptureFixture, type CaptureFixture } from '../../src/checkpoint/fixtures/capture-fixture.js';
import { clearScanStateMemo, loadScanState, saveScanState, statePinOwner } from '../../src/checkpoint/exec-scan-state.js';
import { hashContent, type Journal } from '../../src/model/index.js';
import type { Store } from '../../src/store/store.js';
import { emptyOutcome, pinPreserved, preserveParked } from '../../src/rewind/files/journal-restore.js';
import { createStatCacheState } from '../../src/workspace/index.js';

/**
 * Content stored for a pin that is set a moment later must be pinned from before it is stored:
 * a GC (here a real one, run exactly in that moment) that finds it stored and not yet pinned by its
 * owner would otherwise sweep it, and the owner's pin would then name a blob that is gone.
 */
describe('blobs stored for a pin set afterwards', () => {
  let fx: CaptureFixture;
  beforeEach(async () => {
    fx = await createCaptureFixture();
  });
  afterEach(() => fx.cleanup());

  it("a rollback's preserved content survives a GC between its storing and its pin", async () => {
    const parked = join(fx.root, '.notes.md.0123456789ab.wp-old');
    const content = Buffer.from('a person saved this while the rewind held the path\n');
    writeFileSync(parked, content);
    const outcome = emptyOutcome();
    await preserveParked(fx.blobs, 'workspace:notes.md', { content, mode: 0o644, parkedAt: parked }, outcome);
    await fx.blobs.gc({ compress: false });
    const journal = { id: 'jnl_pinned_test', sessionId: fx.sessionId } as Journal;
    await pinPreserved(fx.store, journal, outcome);
    expect(await fx.blobs.has(hashContent(content))).toBe(true);
    expect((await fx.blobs.get(hashContent(content))).equals(content)).toBe(true);
    // Once pinned by its owner the write pin is gone: a GC now still keeps it, through the owner.
    await fx.blobs.gc({ compress: false });
    expect(await fx.blobs.has(hashContent(content))).toBe(true);
    expect(await fx.store.listWriteIntents()).toEqual([]);
  });

  it("a shell capture's scan state survives a GC between its storing and its pin", async () => {
    const owner = statePinOwner(fx.sessionId);
    let swept: string[] = [];
    // The store as the capture sees it; the GC runs right before the state's pin is set.
    const store = new Proxy(fx.store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (name !== 'setBlobPins' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
        return async (pinOwner: string, hashes: string[]) => {
          if (pinOwner === owner) swept = (await fx.blobs.gc({ compress: false })).unreachable;
          return value.call(target, pinOwner, hashes);
        };
      },
    }) as Store;
    const snapshot = new Map();
    const saved = await saveScanState(store, fx.blobs, fx.sessionId, null, {
      rootsKey: 'workspace=/nowhere',
      snapshot,
      cache: createStatCacheState(snapshot.entries(), Date.now(), 0),
      complete: true,
      pinDelta: [],
    });
    expect(swept).not.toContain(saved.stateHash);
    clearScanStateMemo();
    const loaded = await loadScanState(fx.store, fx.blobs, fx.sessionId, 'workspace=/nowhere');
    expect(loaded?.stateHash).toBe(saved.stateHash);
  });
});
