import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Snapshot, SnapshotEntry } from './snapshot.js';
import { SnapshotOverlay } from './snapshot-overlay.js';

const entry = (hash: string): SnapshotEntry => ({ kind: 'file', hash, size: hash.length, mode: 0o644, mtimeMs: 1, ctimeMs: 1, ino: 1 });
const seed = process.env.WAYPOINT_SEED === undefined ? Date.now() : Number(process.env.WAYPOINT_SEED);

const byKey = (a: [string, SnapshotEntry], b: [string, SnapshotEntry]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** Everything a reader can see of a map, order aside: size, each way of iterating, and lookups of `probes`. */
function seen(map: Snapshot, probes: readonly string[]): string {
  const forEach: Array<[string, SnapshotEntry]> = [];
  map.forEach((value, key) => {
    forEach.push([key, value]);
  });
  return JSON.stringify({
    size: map.size,
    entries: [...map].sort(byKey),
    viaEntries: [...map.entries()].sort(byKey),
    keys: [...map.keys()].sort(),
    values: [...map.values()].map((value) => value.hash).sort(),
    forEach: forEach.sort(byKey),
    copy: [...new Map(map)].sort(byKey),
    get: probes.map((key) => map.get(key)),
    has: probes.map((key) => map.has(key)),
  });
}

const step = fc.oneof(
  fc.record({ op: fc.constant('set' as const), key: fc.integer({ min: 0, max: 120 }), hash: fc.string({ maxLength: 3 }) }),
  fc.record({ op: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 120 }) }),
  // The next scan: a new overlay (or flat copy) of the current snapshot, which must stay as it was.
  fc.constant({ op: 'derive' as const }),
);

describe('SnapshotOverlay', () => {
  it(`holds what a copy of the snapshot it was made from would, through any sets, deletes and overlays of overlays (seed ${seed})`, () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 }), fc.array(step, { maxLength: 400, size: 'max' }), (baseSize, steps) => {
        const base: Snapshot = new Map(Array.from({ length: baseSize }, (_, index) => [`k${index}`, entry(`b${index}`)]));
        const probes = Array.from({ length: 122 }, (_, index) => `k${index}`);
        let overlay = SnapshotOverlay.over(base);
        let copy = new Map(base);
        // Each earlier snapshot with what it showed when the next was derived from it.
        const earlier: Array<[Snapshot, ReturnType<typeof seen>]> = [[base, seen(base, probes)]];
        for (const item of steps) {
          if (item.op === 'set') {
            expect(overlay.set(`k${item.key}`, entry(item.hash))).toBe(overlay);
            copy.set(`k${item.key}`, entry(item.hash));
          } else if (item.op === 'delete') expect(overlay.delete(`k${item.key}`)).toBe(copy.delete(`k${item.key}`));
          else {
            earlier.push([overlay, seen(overlay, probes)]);
            overlay = SnapshotOverlay.over(overlay);
            copy = new Map(copy);
          }
          if (item.op !== 'derive')
            expect([overlay.get(`k${item.key}`), overlay.has(`k${item.key}`), overlay.size]).toEqual([
              copy.get(`k${item.key}`),
              copy.has(`k${item.key}`),
              copy.size,
            ]);
          else expect(seen(overlay, probes)).toBe(seen(copy, probes));
        }
        expect(seen(overlay, probes)).toBe(seen(copy, probes));
        for (const [snapshot, view] of earlier) expect(seen(snapshot, probes)).toBe(view);
        overlay.clear();
        expect(seen(overlay, probes)).toBe(seen(new Map(), probes));
        for (const [snapshot, view] of earlier) expect(seen(snapshot, probes)).toBe(view);
      }),
      { seed, numRuns: 25, endOnFailure: true },
    );
  });

  it('iterates in the base order, a path deleted and set again in its place, new paths after, and leaves the base as it was', () => {
    const base: Snapshot = new Map([
      ['a', entry('1')],
      ['b', entry('2')],
      ['c', entry('3')],
    ]);
    const overlay = SnapshotOverlay.over(base);
    overlay.set('d', entry('4'));
    overlay.delete('a');
    expect([...overlay.keys()]).toEqual(['b', 'c', 'd']);
    overlay.set('b', entry('22'));
    overlay.set('a', entry('11'));
    expect([...overlay.keys()]).toEqual(['a', 'b', 'c', 'd']);
    expect(overlay.get('a')?.hash).toBe('11');
    expect(overlay.get('b')?.hash).toBe('22');
    expect([...base.values()].map((value) => value.hash)).toEqual(['1', '2', '3']);
    const next = SnapshotOverlay.over(overlay);
    next.delete('a');
    next.delete('d');
    expect(next.has('a')).toBe(false);
    expect(next.get('d')).toBeUndefined();
    expect(overlay.get('a')?.hash).toBe('11');
    expect(overlay.get('d')?.hash).toBe('4');
    expect(next.size).toBe(2);
    expect(overlay.size).toBe(4);
  });
});
