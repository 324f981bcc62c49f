import { describe, expect, it } from 'vitest';
import { decodeDeltaBlob, deltaSeq, encodeDeltaBlob } from './blob-codec.js';

const base = Buffer.from(Array.from({ length: 300 }, (_, line) => `line ${line} of the base\n`).join(''));
const next = Buffer.from(base.toString().replace('line 150 ', 'line one hundred fifty '));

describe('numbered deltas', () => {
  it('keep their place in the line of versions in their bytes and decode like any delta', () => {
    for (const seq of [1, 127, 128, 300_000]) {
      const encoded = encodeDeltaBlob(base, next, seq);
      expect(encoded.bytes[0] === 3 || encoded.bytes[0] === 4).toBe(true);
      expect(deltaSeq(encoded.bytes)).toBe(seq);
      expect(decodeDeltaBlob(base, encoded.bytes).equals(next)).toBe(true);
    }
  });

  it('a delta numbered 0 is written as before (flags 0 and 1) and reads as 0', () => {
    const encoded = encodeDeltaBlob(base, next);
    expect(encoded.bytes[0]! < 2).toBe(true);
    expect(deltaSeq(encoded.bytes)).toBe(0);
    expect(decodeDeltaBlob(base, encoded.bytes).equals(next)).toBe(true);
  });

  it('a number cut short is DELTA_MALFORMED', () => {
    const encoded = encodeDeltaBlob(base, next, 300_000);
    expect(() => deltaSeq(encoded.bytes.subarray(0, 2))).toThrow(expect.objectContaining({ code: 'DELTA_MALFORMED' }));
  });
});
