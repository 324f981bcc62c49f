import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { StoredBlobInput } from '../store.js';
import type { ConformanceCase } from './run-store-conformance.js';

function blob(content: string, base?: StoredBlobInput): StoredBlobInput {
  const bytes = Buffer.from(content);
  const hash = createHash('sha256')
    .update(`${content}${base ? ' (delta)' : ''}`)
    .digest('hex');
  return base
    ? { record: { hash, size: bytes.length, storedSize: bytes.length, encoding: 'delta', baseHash: base.record.hash, chainDepth: 1 }, bytes }
    : { record: { hash, size: bytes.length, storedSize: bytes.length, encoding: 'raw', baseHash: null, chainDepth: 0 }, bytes };
}

/** Writes in flight (`recordWriteIntent` / `finishWriteIntent`) and the sweep that respects them. */
export const writeIntentCases: Record<string, ConformanceCase> = {
  async 'a write intent pins its blobs until it is finished, and finishing adds its checkpoints in the same step'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    const [before, after] = [blob('before'), blob('after')];
    const intent = await store.recordWriteIntent({
      sessionId: session.id,
      hashes: [before.record.hash, after.record.hash],
      files: [{ path: 'workspace:a.txt', entryPath: '/nowhere/a.txt', beforeHash: before.record.hash, afterHash: after.record.hash }],
    });
    expect(intent).toMatchObject({ sessionId: session.id, pid: process.pid, hashes: [before.record.hash, after.record.hash] });
    expect(await store.listWriteIntents()).toEqual([intent]);
    expect(await store.blobRoots()).toEqual(new Set([before.record.hash, after.record.hash]));
    const [checkpoint] = await store.finishWriteIntent(intent.id, [
      { sessionId: session.id, op: 'modify', path: 'workspace:a.txt', beforeHash: before.record.hash, afterHash: after.record.hash, source: 'tool' },
    ]);
    expect(checkpoint).toMatchObject({ op: 'modify', beforeHash: before.record.hash, afterHash: after.record.hash });
    expect(await store.listWriteIntents()).toEqual([]);
    expect(await store.blobRoots()).toEqual(new Set([before.record.hash, after.record.hash]));
    // Given up: nothing is added, the pins go.
    const dropped = await store.recordWriteIntent({ hashes: [blob('other').record.hash] });
    expect(await store.finishWriteIntent(dropped.id)).toEqual([]);
    expect(await store.blobRoots()).toEqual(new Set([before.record.hash, after.record.hash]));
  },

  async 'the sweep deletes only candidates still unreachable when it deletes: not pinned, referenced or a kept delta base'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    const [gone, pinned, referenced, base] = [blob('gone'), blob('pinned'), blob('referenced'), blob('base')];
    const delta = blob('delta', base);
    await store.blobs.putMany([gone, pinned, referenced, base]);
    await store.blobs.putMany([delta]);
    const candidates = [gone, pinned, referenced, base].map((item) => item.record.hash);
    // Referenced after a mark found them unreachable: a write in flight, a checkpoint, a kept delta.
    const intent = await store.recordWriteIntent({ hashes: [pinned.record.hash, delta.record.hash] });
    await store.addCheckpoints([
      { sessionId: session.id, op: 'create', path: 'workspace:r.txt', beforeHash: null, afterHash: referenced.record.hash, source: 'tool' },
    ]);
    const swept = await store.sweepBlobs(candidates);
    expect(swept.deleted).toEqual([gone.record.hash]);
    expect(new Set(swept.spared)).toEqual(new Set([pinned.record.hash, referenced.record.hash, base.record.hash]));
    expect(swept.freedBytes).toBe(gone.bytes.length);
    expect(await store.blobs.has(candidates)).toEqual(new Set([pinned.record.hash, referenced.record.hash, base.record.hash]));
    await store.finishWriteIntent(intent.id);
    const next = await store.sweepBlobs([pinned.record.hash, base.record.hash, delta.record.hash]);
    expect(new Set(next.deleted)).toEqual(new Set([pinned.record.hash, base.record.hash, delta.record.hash]));
    expect(await store.sweepBlobs([])).toEqual({ deleted: [], spared: [], freedBytes: 0 });
  },

  async 'write intents survive a reopen: a crashed writer leaves them for recovery'(harness) {
    const { store } = harness();
    const intent = await store.recordWriteIntent({
      hashes: [blob('kept').record.hash],
      files: [{ path: 'workspace:k.txt', entryPath: '/nowhere/k.txt', beforeHash: null, afterHash: blob('kept').record.hash }],
    });
    const reopened = await harness().reopen();
    expect(await reopened.listWriteIntents()).toEqual([intent]);
    expect(await reopened.blobRoots()).toEqual(new Set([blob('kept').record.hash]));
  },
};
