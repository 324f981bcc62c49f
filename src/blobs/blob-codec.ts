import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { InvalidArgumentError, type BlobEncoding } from '../model/index.js';
import { decodeDelta, encodeDelta } from './delta-codec.js';

/** Encoded bytes of one blob and how to read them back. */
export interface EncodedBlob {
  encoding: BlobEncoding;
  bytes: Buffer;
}

/**
 * zlib level 1 for blobs compressed as they are written: capture of a whole workspace hashes and
 * compresses every file, and level 1 made bulk writes 2x faster end to end than the default level
 * 6 (bench `blobs`), for about a tenth more stored bytes — git makes the same trade for loose
 * objects.
 */
const DEFLATE_OPTIONS = { level: 1 };

/**
 * Level 6 (zlib's default, what git packs use) where the bytes are kept for good and nobody waits:
 * the compress pass, which runs at idle and in GC over blobs first stored raw, and delta bodies,
 * which are small. Level 9 saved under 1% more on source text for twice the time.
 */
const PACKED_DEFLATE_OPTIONS = { level: 6 };

/** First byte of a stored delta: how the delta body that follows is kept. */
const DELTA_PLAIN = 0;
const DELTA_DEFLATED = 1;

/**
 * Deflate (raw) when it saves at least 1/32 of the size, otherwise keep the bytes as they are:
 * already-compressed data (images, archives) is stored raw and read back without inflating.
 */
export function encodeWhole(content: Buffer, options: { level: number } = DEFLATE_OPTIONS): EncodedBlob {
  if (content.length < 32) return { encoding: 'raw', bytes: content };
  const deflated = deflateRawSync(content, options);
  if (deflated.length <= content.length - content.length / 32) return { encoding: 'deflate', bytes: deflated };
  return { encoding: 'raw', bytes: content };
}

/** `encodeWhole` for a blob that was stored raw first (the compress pass, at idle): deflated (level 6) or raw for good. */
export function encodeForGood(content: Buffer): { encoding: 'raw' | 'deflate'; bytes: Buffer } {
  const encoded = encodeWhole(content, PACKED_DEFLATE_OPTIONS);
  return { encoding: encoded.encoding === 'deflate' ? 'deflate' : 'raw', bytes: encoded.bytes };
}

/** A delta of `content` against `base`, its body deflated when that is smaller. */
export function encodeDeltaBlob(base: Buffer, content: Buffer): EncodedBlob {
  const delta = encodeDelta(base, content);
  const deflated = delta.length >= 64 ? deflateRawSync(delta, PACKED_DEFLATE_OPTIONS) : null;
  const body = deflated && deflated.length < delta.length ? deflated : delta;
  const flag = body === delta ? DELTA_PLAIN : DELTA_DEFLATED;
  return { encoding: 'delta', bytes: Buffer.concat([Buffer.from([flag]), body]) };
}

/** Content of a whole (raw or deflated) blob. Throws on undecodable bytes. */
export function decodeWhole(encoding: Exclude<BlobEncoding, 'delta'>, bytes: Buffer): Buffer {
  return encoding === 'deflate' ? inflateRawSync(bytes) : bytes;
}

/** Content of a delta blob given its base's content. Throws on undecodable bytes. */
export function decodeDeltaBlob(base: Buffer, bytes: Buffer): Buffer {
  return decodeDelta(base, deltaBody(bytes));
}

/** The delta a stored delta blob holds (inflated when it was kept deflated), for `decodeDelta` or `DeltaChain`. Throws on an unknown flag. */
export function deltaBody(bytes: Buffer): Buffer {
  const flag = bytes[0];
  const body = bytes.subarray(1);
  if (flag === DELTA_PLAIN) return body;
  if (flag === DELTA_DEFLATED) return inflateRawSync(body);
  throw new InvalidArgumentError({ parameter: 'delta', value: flag ?? null, reason: `unknown delta flag ${String(flag)}`, code: 'DELTA_MALFORMED' });
}
