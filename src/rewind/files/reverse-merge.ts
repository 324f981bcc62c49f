import { applyPatch, reversePatch } from 'diff';
import { linePatch } from '../../checkpoint/text-patch.js';

/**
 * Undoes one change (`before` → `after`) on a text that has moved on since (`current`): the change's
 * hunks are reversed and applied to `current` with no fuzz, so edits made elsewhere in the file
 * survive. Returns null when any input is not UTF-8 text or a hunk does not apply cleanly (also when
 * a piece of a pathological change was diffed as replaced whole and someone edited inside it).
 *
 * @example
 * reverseMerge(Buffer.from('A\nb2\nC!\n'), Buffer.from('A\nb\nC\n'), Buffer.from('A\nb2\nC\n')) // null: C changed next to b
 */
export function reverseMerge(current: Buffer, before: Buffer, after: Buffer): Buffer | null {
  const texts = [current, before, after].map(asText);
  if (texts.some((text) => text === null)) return null;
  const [currentText, beforeText, afterText] = texts as [string, string, string];
  // The same bounded line diff as stored patches: a pathological change cannot stall a rewind.
  const change = linePatch('file', 'file', beforeText, afterText, 3);
  if (change.hunks.length === 0) return Buffer.from(currentText);
  const merged = applyPatch(currentText, reversePatch(change), { fuzzFactor: 0 });
  return merged === false ? null : Buffer.from(merged);
}

function asText(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  const text = bytes.toString('utf8');
  return Buffer.byteLength(text) === bytes.length && Buffer.from(text).equals(bytes) ? text : null;
}
