import { deflateRawSync, inflateRawSync } from 'node:zlib';

/** JSON shorter than this is stored as text: deflate cannot save what its own framing costs. */
const MIN_PACKED_LENGTH = 128;

/**
 * A JSON column value as the SQLite store keeps it: the text itself, or the text deflated (a BLOB)
 * when that is at least a quarter smaller. Turn metadata lists each path a shell command left
 * uncovered with the whole command beside it: on the replay bench 66 KB of text, 27 KB deflated.
 * SQL never looks inside these columns; `unpackJson` reads both forms.
 */
export function packJson(json: string): string | Buffer {
  if (json.length < MIN_PACKED_LENGTH) return json;
  const deflated = deflateRawSync(Buffer.from(json, 'utf8'), { level: 6 });
  return deflated.length * 4 <= json.length * 3 ? deflated : json;
}

/** The JSON text of a column value written by `packJson` (text as it is, a BLOB inflated). */
export function unpackJson(value: string | Buffer): string {
  return typeof value === 'string' ? value : inflateRawSync(value).toString('utf8');
}
