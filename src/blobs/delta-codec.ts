import { InvalidArgumentError } from '../model/index.js';

/**
 * A compact copy/insert binary delta: `target` expressed as pieces copied from `base` and literal
 * bytes. Format (all integers unsigned LEB128 varints):
 *
 *     baseLength targetLength op*
 *     op = 0x00 length byte{length}     insert literal bytes
 *        | 0x01 offset length            copy base[offset, offset + length)
 *
 * The encoder trims the common prefix and suffix (a one-line edit costs a few bytes), then finds
 * matches for the middle through an index of the base's 16-byte blocks and a rolling hash over
 * the target, extending each verified match forwards and backwards.
 *
 * @example
 * const delta = encodeDelta(previous, next);
 * decodeDelta(previous, delta).equals(next); // true
 */
export function encodeDelta(base: Buffer, target: Buffer): Buffer {
  const out = new DeltaWriter();
  out.varint(base.length);
  out.varint(target.length);
  const shorter = Math.min(base.length, target.length);
  let prefix = 0;
  while (prefix < shorter && base[prefix] === target[prefix]) prefix++;
  let suffix = 0;
  while (suffix < shorter - prefix && base[base.length - 1 - suffix] === target[target.length - 1 - suffix]) suffix++;
  if (prefix > 0) out.copy(0, prefix);
  encodeMiddle(base, target, prefix, target.length - suffix, out);
  if (suffix > 0) out.copy(base.length - suffix, suffix);
  return out.finish();
}

/**
 * Rebuild the target from `base` and a delta made by `encodeDelta` against that same base.
 * Throws `InvalidArgumentError` (`DELTA_MALFORMED`) for a truncated or inconsistent delta or a
 * base of the wrong length; never returns a partially built buffer.
 */
export function decodeDelta(base: Buffer, delta: Buffer): Buffer {
  const reader = new DeltaReader(delta);
  const baseLength = reader.varint();
  if (baseLength !== base.length) malformed(`it was made against a base of ${baseLength} bytes, not ${base.length}`);
  const targetLength = reader.varint();
  const target = Buffer.allocUnsafe(targetLength);
  let position = 0;
  while (!reader.done) {
    const op = reader.byte();
    if (op === OP_INSERT) {
      const length = reader.varint();
      if (position + length > targetLength) malformed('an insert runs past the target length');
      reader.bytes(length).copy(target, position);
      position += length;
    } else if (op === OP_COPY) {
      const offset = reader.varint();
      const length = reader.varint();
      if (offset + length > base.length) malformed('a copy reads past the end of the base');
      if (position + length > targetLength) malformed('a copy runs past the target length');
      base.copy(target, position, offset, offset + length);
      position += length;
    } else {
      malformed(`unknown op ${op}`);
    }
  }
  if (position !== targetLength) malformed(`it builds ${position} of ${targetLength} bytes`);
  return target;
}

/** A run of bytes of the content being rebuilt: `length` bytes of `source` from `offset`. */
interface Piece {
  source: Buffer;
  offset: number;
  length: number;
}

/**
 * Rebuilds the top of a delta chain without materializing the levels in between: each delta
 * (oldest first, each made against the content the ones before it build) is read into a list of
 * pieces of the bottom content and of the deltas' literal bytes, and only the last one is copied
 * out. A chain of 16 deltas of a 1 MB file costs one 1 MB copy instead of 16. The checks are those
 * of `decodeDelta`; a malformed delta throws (`DELTA_MALFORMED`) and leaves the chain as it was.
 *
 * @example
 * const chain = new DeltaChain(v1);
 * chain.apply(encodeDelta(v1, v2));
 * chain.apply(encodeDelta(v2, v3));
 * chain.build().equals(v3); // true
 */
export class DeltaChain {
  private pieces: Piece[];
  /** Where each piece starts in the content; parallel to `pieces`. */
  private starts: number[];
  private length: number;

  constructor(base: Buffer) {
    this.pieces = base.length > 0 ? [{ source: base, offset: 0, length: base.length }] : [];
    this.starts = base.length > 0 ? [0] : [];
    this.length = base.length;
  }

  apply(delta: Buffer): void {
    const reader = new DeltaReader(delta);
    const baseLength = reader.varint();
    if (baseLength !== this.length) malformed(`it was made against a base of ${baseLength} bytes, not ${this.length}`);
    const targetLength = reader.varint();
    const pieces: Piece[] = [];
    const starts: number[] = [];
    let position = 0;
    const push = (source: Buffer, offset: number, length: number) => {
      const last = pieces[pieces.length - 1];
      if (last !== undefined && last.source === source && last.offset + last.length === offset) last.length += length;
      else {
        pieces.push({ source, offset, length });
        starts.push(position);
      }
      position += length;
    };
    while (!reader.done) {
      const op = reader.byte();
      if (op === OP_INSERT) {
        const length = reader.varint();
        if (position + length > targetLength) malformed('an insert runs past the target length');
        const bytes = reader.bytes(length);
        if (length > 0) push(bytes, 0, length);
      } else if (op === OP_COPY) {
        const offset = reader.varint();
        const length = reader.varint();
        if (offset + length > this.length) malformed('a copy reads past the end of the base');
        if (position + length > targetLength) malformed('a copy runs past the target length');
        let at = offset;
        let left = length;
        for (let index = this.pieceAt(at); left > 0; index++) {
          const piece = this.pieces[index]!;
          const skip = at - this.starts[index]!;
          const take = Math.min(piece.length - skip, left);
          push(piece.source, piece.offset + skip, take);
          at += take;
          left -= take;
        }
      } else {
        malformed(`unknown op ${op}`);
      }
    }
    if (position !== targetLength) malformed(`it builds ${position} of ${targetLength} bytes`);
    this.pieces = pieces;
    this.starts = starts;
    this.length = targetLength;
  }

  /** The content the deltas applied so far build, in a new buffer. */
  build(): Buffer {
    const target = Buffer.allocUnsafe(this.length);
    for (const [index, piece] of this.pieces.entries()) piece.source.copy(target, this.starts[index]!, piece.offset, piece.offset + piece.length);
    return target;
  }

  /** The index of the piece holding content offset `at` (which is below the length). */
  private pieceAt(at: number): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.starts[middle]! <= at) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}

const OP_INSERT = 0x00;
const OP_COPY = 0x01;
const BLOCK = 16;
const PRIME = 0x01000193;
/** PRIME ** (BLOCK - 1) mod 2^32, to drop the outgoing byte from the rolling hash. */
const OUT_FACTOR = (() => {
  let factor = 1;
  for (let index = 0; index < BLOCK - 1; index++) factor = Math.imul(factor, PRIME);
  return factor;
})();

function blockHash(buffer: Buffer, start: number): number {
  let hash = 0;
  for (let index = start; index < start + BLOCK; index++) hash = (Math.imul(hash, PRIME) + buffer[index]!) | 0;
  return hash;
}

function encodeMiddle(base: Buffer, target: Buffer, start: number, end: number, out: DeltaWriter): void {
  if (end - start < BLOCK || base.length < BLOCK) {
    out.insert(target, start, end);
    return;
  }
  const index = new Map<number, number>();
  for (let position = 0; position + BLOCK <= base.length; position += BLOCK) {
    const hash = blockHash(base, position);
    if (!index.has(hash)) index.set(hash, position);
  }
  let pending = start;
  let position = start;
  let hash = blockHash(target, position);
  // Where the last copy ended in the base: an edit usually replaces a few bytes and the rest
  // continues from there, so the base right after it (give or take a few bytes) is tried before
  // the block index, which names only the first of identical blocks (a lock file repeats the
  // same 16-byte runs on every line, and the first occurrence would copy from the wrong line).
  let baseEnd = start;
  while (position + BLOCK <= end) {
    const candidate = (position - pending <= NEAR_WINDOW ? nearCopyEnd(base, target, position, baseEnd + (position - pending)) : undefined) ?? index.get(hash);
    // The first byte is compared in JavaScript before the block is: most candidates fail there, and a
    // `compare` call costs far more than the byte.
    if (
      candidate !== undefined &&
      base[candidate] === target[position] &&
      base.compare(target, position, position + BLOCK, candidate, candidate + BLOCK) === 0
    ) {
      let length = BLOCK;
      while (position + length < end && candidate + length < base.length && base[candidate + length] === target[position + length]) length++;
      let back = 0;
      while (position - back > pending && candidate - back > 0 && base[candidate - back - 1] === target[position - back - 1]) back++;
      out.insert(target, pending, position - back);
      out.copy(candidate - back, length + back);
      position += length;
      pending = position;
      baseEnd = candidate + length;
      if (position + BLOCK <= end) hash = blockHash(target, position);
      continue;
    }
    if (position + BLOCK < end) {
      hash = (Math.imul(hash - Math.imul(target[position]!, OUT_FACTOR), PRIME) + target[position + BLOCK]!) | 0;
    }
    position++;
  }
  out.insert(target, pending, end);
}

/** How far past the last copy, in target bytes, the base after it is still tried first. */
const NEAR_WINDOW = 512;
/** How many bytes either side of the expected base offset are tried (a few bytes longer or shorter). */
const NEAR_SHIFT = 8;

/** A base offset within a few bytes of `expected` whose block equals the target's at `position`; undefined when none. */
function nearCopyEnd(base: Buffer, target: Buffer, position: number, expected: number): number | undefined {
  for (let shift = 0; shift <= NEAR_SHIFT; shift = shift <= 0 ? 1 - shift : -shift) {
    const offset = expected + shift;
    if (
      offset >= 0 &&
      offset + BLOCK <= base.length &&
      base[offset] === target[position] &&
      base.compare(target, position, position + BLOCK, offset, offset + BLOCK) === 0
    )
      return offset;
  }
  return undefined;
}

class DeltaWriter {
  private readonly chunks: Buffer[] = [];
  private header: number[] = [];

  varint(value: number): void {
    while (value >= 0x80) {
      this.header.push((value % 0x80) | 0x80);
      value = Math.floor(value / 0x80);
    }
    this.header.push(value);
  }

  copy(offset: number, length: number): void {
    if (length === 0) return;
    this.header.push(OP_COPY);
    this.varint(offset);
    this.varint(length);
  }

  insert(source: Buffer, start: number, end: number): void {
    if (end <= start) return;
    this.header.push(OP_INSERT);
    this.varint(end - start);
    this.flushHeader();
    this.chunks.push(source.subarray(start, end));
  }

  finish(): Buffer {
    this.flushHeader();
    return Buffer.concat(this.chunks);
  }

  private flushHeader(): void {
    if (this.header.length === 0) return;
    this.chunks.push(Buffer.from(this.header));
    this.header = [];
  }
}

class DeltaReader {
  private position = 0;

  constructor(private readonly delta: Buffer) {}

  get done(): boolean {
    return this.position >= this.delta.length;
  }

  byte(): number {
    if (this.position >= this.delta.length) malformed('it ends in the middle of an op');
    return this.delta[this.position++]!;
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.byte();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
      if (scale > 2 ** 49) malformed('a length field is too long');
    }
  }

  bytes(length: number): Buffer {
    if (this.position + length > this.delta.length) malformed('an insert ends past the end of the delta');
    const bytes = this.delta.subarray(this.position, this.position + length);
    this.position += length;
    return bytes;
  }
}

function malformed(reason: string): never {
  throw new InvalidArgumentError({ parameter: 'delta', value: null, reason: `the delta is malformed: ${reason}`, code: 'DELTA_MALFORMED' });
}
