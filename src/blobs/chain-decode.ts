import { BlobCorruptError, type BlobRecord } from '../model/index.js';
import { decodeDictionaryDelta, decodeWhole, deltaBody, isDictionaryDelta } from './blob-codec.js';
import { DeltaChain } from './delta-codec.js';

/**
 * The content at the top of `chain` (the records from the blob read down to its bottom: a level
 * already in `decoded`, a delta whose base is in `decoded`, or a whole blob). The deltas are
 * composed (`DeltaChain`), so only the bottom and the top are materialized, however deep the
 * chain; both go into `decoded` (unverified, for reuse as a base only) and their hashes into
 * `added`. A dictionary delta (a small file deflated against a shared dictionary) is no copy/insert
 * delta: what is below it is built, and it is inflated against that. A whole blob read as the base
 * of others goes to `keepBase`. Undecodable bytes throw `BlobCorruptError` for `hash`, naming the level.
 */
export async function decodeChain(
  hash: string,
  chain: readonly BlobRecord[],
  decoded: Map<string, Buffer>,
  added: string[],
  readStored: (record: BlobRecord) => Promise<Buffer>,
  keepBase: (record: BlobRecord, content: Buffer) => void = () => {},
): Promise<Buffer> {
  const undecodable = (record: BlobRecord, error: unknown) =>
    new BlobCorruptError({
      hash,
      reason: `its stored bytes${record.hash === hash ? '' : ` (delta base ${record.hash})`} cannot be decoded: ${(error as Error).message}`,
      cause: error,
    });
  const bottom = chain[chain.length - 1]!;
  let levels = chain.length;
  let below = decoded.get(bottom.hash);
  if (below !== undefined) levels--;
  else if (bottom.encoding === 'delta') below = decoded.get(bottom.baseHash!)!;
  else {
    levels--;
    const bytes = await readStored(bottom);
    try {
      below = decodeWhole(bottom.encoding, bytes);
    } catch (error) {
      throw undecodable(bottom, error);
    }
    decoded.set(bottom.hash, below);
    added.push(bottom.hash);
    if (chain.length > 1) keepBase(bottom, below);
  }
  if (levels === 0) return below;
  let deltas: DeltaChain | null = null;
  for (let level = levels - 1; level >= 0; level--) {
    const record = chain[level]!;
    const bytes = await readStored(record);
    try {
      if (isDictionaryDelta(bytes)) {
        below = decodeDictionaryDelta(deltas ? deltas.build() : below, bytes);
        deltas = null;
      } else {
        deltas ??= new DeltaChain(below);
        deltas.apply(deltaBody(bytes));
      }
    } catch (error) {
      throw undecodable(record, error);
    }
  }
  const top = deltas ? deltas.build() : below;
  decoded.set(chain[0]!.hash, top);
  added.push(chain[0]!.hash);
  return top;
}
