import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { Snapshot, SnapshotEntry } from './snapshot.js';
import { pathsThatMayDiffer, recordDerivation } from './snapshot-derivation.js';

/** V8's full garbage collection, reachable without starting the process with `--expose-gc`. */
function fullGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const entry = (index: number): SnapshotEntry => ({
  kind: 'file',
  hash: index.toString(16).padStart(64, '0'),
  size: index,
  mode: 0o644,
  mtimeMs: index,
  ctimeMs: index,
  ino: index,
});

/** A scan's snapshot of `count` files. */
function scanOf(count: number): Snapshot {
  return new Map(Array.from({ length: count }, (_, index) => [`workspace:src/f${index}.ts`, entry(index)]));
}

describe('the record of which snapshot a scan derived from which', () => {
  it('narrows a comparison to the paths the scan touched, and only against the very base it was derived from', () => {
    const base = scanOf(100);
    const after = new Map(base);
    after.set('workspace:src/f1.ts', entry(1001));
    recordDerivation(after, { base, touched: new Set(['workspace:src/f1.ts']) });
    expect(pathsThatMayDiffer(base, after)).toEqual(new Set(['workspace:src/f1.ts']));
    // An equal snapshot that is not that base, or the other direction: every path is compared.
    expect(pathsThatMayDiffer(new Map(base), after)).toBeNull();
    expect(pathsThatMayDiffer(after, base)).toBeNull();
  });

  it('does not keep earlier snapshots alive: a long-lived process scanning again and again holds only the ones it uses', async () => {
    const gc = fullGc();
    let previous = scanOf(2000);
    const first = new WeakRef(previous);
    // Ten scans, each derived from the one before; only the newest is kept by this test.
    for (let scan = 1; scan <= 10; scan++) {
      const next = new Map(previous);
      next.set(`workspace:src/f${scan}.ts`, entry(5000 + scan));
      recordDerivation(next, { base: previous, touched: new Set([`workspace:src/f${scan}.ts`]) });
      previous = next;
    }
    // A WeakRef's target lives at least until the current job ends: collect from later ones.
    for (let attempt = 0; attempt < 20 && first.deref() !== undefined; attempt++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    expect(first.deref()).toBeUndefined();
    expect(previous.get('workspace:src/f10.ts')).toEqual(entry(5010));
  });
});
