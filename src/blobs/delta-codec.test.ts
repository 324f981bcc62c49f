import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { WaypointError } from '../model/index.js';
import { decodeDelta, DeltaChain, encodeDelta } from './delta-codec.js';

const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((array) => Buffer.from(array));

/** A target made from pieces of the base and fresh bytes, the shape real edits have. */
const editedPair = fc.tuple(bytes(4000), fc.array(fc.tuple(fc.nat(), fc.nat({ max: 600 }), bytes(40)), { maxLength: 12 })).map(([base, edits]) => {
  const pieces: Buffer[] = [];
  for (const [start, length, insert] of edits) {
    const from = base.length === 0 ? 0 : start % base.length;
    pieces.push(base.subarray(from, from + length), insert);
  }
  return { base, target: Buffer.concat(pieces) };
});

describe('delta codec', () => {
  it('round-trips random base/target pairs', () => {
    fc.assert(
      fc.property(bytes(3000), bytes(3000), (base, target) => {
        expect(decodeDelta(base, encodeDelta(base, target)).equals(target)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips targets built from pieces of the base', () => {
    fc.assert(
      fc.property(editedPair, ({ base, target }) => {
        expect(decodeDelta(base, encodeDelta(base, target)).equals(target)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips repetitive data (many equal blocks in the base)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), fc.nat({ max: 5000 }), fc.nat({ max: 5000 }), (value, baseLength, targetLength) => {
        const base = Buffer.alloc(baseLength, value);
        const target = Buffer.alloc(targetLength, value);
        expect(decodeDelta(base, encodeDelta(base, target)).equals(target)).toBe(true);
      }),
    );
  });

  it('costs a few bytes for a one-line edit of a large file', () => {
    const lines = Array.from({ length: 3000 }, (_, index) => `const value${index} = compute(${index * 7}, "item-${index}");`);
    const base = Buffer.from(lines.join('\n'));
    lines[1500] = 'const changed = true;';
    const target = Buffer.from(lines.join('\n'));
    const delta = encodeDelta(base, target);
    expect(delta.length).toBeLessThan(64);
    expect(decodeDelta(base, delta).equals(target)).toBe(true);
  });

  it('finds moved blocks, not only a common prefix and suffix', () => {
    const first = Buffer.from('a'.repeat(10) + 'The quick brown fox jumps over the lazy dog. '.repeat(40));
    const second = Buffer.from('Pack my box with five dozen liquor jugs, please! '.repeat(40));
    const base = Buffer.concat([first, second]);
    const target = Buffer.concat([second, Buffer.from('--'), first]);
    const delta = encodeDelta(base, target);
    expect(delta.length).toBeLessThan(40);
    expect(decodeDelta(base, delta).equals(target)).toBe(true);
  });

  it('rejects a truncated delta, a wrong base and garbage with DELTA_MALFORMED', () => {
    const base = Buffer.from('hello world, hello delta codec, hello tests');
    const target = Buffer.from('hello world! hello delta codec? new bytes here');
    const delta = encodeDelta(base, target);
    const failures = [
      () => decodeDelta(base, delta.subarray(0, delta.length - 3)),
      () => decodeDelta(Buffer.concat([base, Buffer.from('x')]), delta),
      () => decodeDelta(base, Buffer.from([base.length, 4, 0x07, 1, 2])),
      () => decodeDelta(base, Buffer.from([base.length, 4, 0x01, 40, 10])),
    ];
    for (const failure of failures) {
      let caught: unknown;
      try {
        failure();
      } catch (error) {
        caught = error;
      }
      expect(WaypointError.is(caught, 'DELTA_MALFORMED')).toBe(true);
    }
  });

  it('composes a chain of deltas into the same content as decoding each level in turn', () => {
    /** Versions made by editing the previous one, the shape a file's history has. */
    const versions = fc
      .tuple(bytes(3000), fc.array(fc.array(fc.tuple(fc.nat(), fc.nat({ max: 600 }), bytes(40)), { maxLength: 8 }), { maxLength: 20 }))
      .map(([first, rounds]) => {
        const all = [first];
        for (const edits of rounds) {
          const previous = all[all.length - 1]!;
          const pieces: Buffer[] = [];
          for (const [start, length, insert] of edits) {
            const from = previous.length === 0 ? 0 : start % previous.length;
            pieces.push(previous.subarray(from, from + length), insert);
          }
          all.push(Buffer.concat(pieces));
        }
        return all;
      });
    fc.assert(
      fc.property(versions, (all) => {
        const chain = new DeltaChain(all[0]!);
        expect(chain.build().equals(all[0]!)).toBe(true);
        for (let index = 1; index < all.length; index++) {
          chain.apply(encodeDelta(all[index - 1]!, all[index]!));
          expect(chain.build().equals(all[index]!)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a malformed delta in a chain with DELTA_MALFORMED and keeps the content built so far', () => {
    const v1 = Buffer.from('one two three four five six seven eight nine ten');
    const v2 = Buffer.from('one two THREE four five six seven eight nine ten eleven');
    const chain = new DeltaChain(v1);
    chain.apply(encodeDelta(v1, v2));
    const good = encodeDelta(v2, Buffer.from('two THREE four'));
    const failures = [
      encodeDelta(v1, v2), // made against another base length
      good.subarray(0, good.length - 1),
      Buffer.from([v2.length, 4, 0x01, 60, 10]),
      Buffer.from([v2.length, 4, 0x07]),
    ];
    for (const delta of failures) {
      let caught: unknown;
      try {
        chain.apply(delta);
      } catch (error) {
        caught = error;
      }
      expect(WaypointError.is(caught, 'DELTA_MALFORMED')).toBe(true);
      expect(chain.build().equals(v2)).toBe(true);
    }
    chain.apply(good);
    expect(chain.build().toString()).toBe('two THREE four');
  });
});
