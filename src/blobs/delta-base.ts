/** What choosing a base needs to know of a blob: an item of the batch being written or a stored record. */
export interface DeltaLink {
  chainDepth: number;
  baseHash: string | null;
  deltaSeq?: number;
}

/** Where a new version goes: its delta base, the chain depth it gets and its place in the line of versions. */
export interface DeltaPlan {
  baseHash: string;
  chainDepth: number;
  deltaSeq: number;
}

/** Looks a link up: the batch first, then the records read for it, then storage. */
export type LinkLookup = (hash: string) => Promise<DeltaLink | null>;

/**
 * The base for the version that follows `previous` (the caller's base, the file's previous
 * version), by the skip-delta rule Subversion uses: versions of a file are numbered from the last
 * whole one (`deltaSeq`), and version n is a delta against version n with its lowest set bit
 * cleared. That version is always on `previous`'s own chain (each link there clears one more bit),
 * so it is found by walking up it. Chains stay logarithmic (depth = the number of set bits) and a
 * delta spans at most as many versions as n's lowest set bit, so a file changed a little in every
 * turn (a lock file) costs a few small deltas per version instead of one that carries every change
 * since a fixed ancestor.
 *
 * When the chain would pass `maxChainDepth` (a line that started on a deep chain, or blobs written
 * before versions were numbered, which all count as 0), the version starts a new line (number 1)
 * on the blob halfway down `previous`'s chain; a line's first blob is its version 0 for the walk.
 * Null when no usable base is found (a link is missing, or the chain does not end in time): the
 * version is then stored whole.
 */
export async function planDelta(previousHash: string, previous: DeltaLink, maxChainDepth: number, lookup: LinkLookup): Promise<DeltaPlan | null> {
  const previousSeq = previous.deltaSeq ?? 0;
  const deltaSeq = previousSeq + 1;
  const target = previousSeq & deltaSeq;
  let hash = previousHash;
  let link: DeltaLink = previous;
  for (let step = 0; (link.deltaSeq ?? 0) > target && link.baseHash !== null; step++) {
    if (step > maxChainDepth * 4) return null;
    const below = await lookup(link.baseHash);
    if (!below) return null;
    // A line's first blob stands on a blob of an older line (numbered as high or higher): it is this line's version 0.
    if ((below.deltaSeq ?? 0) >= (link.deltaSeq ?? 0)) {
      hash = link.baseHash;
      link = below;
      break;
    }
    hash = link.baseHash;
    link = below;
  }
  if (link.chainDepth < maxChainDepth) return { baseHash: hash, chainDepth: link.chainDepth + 1, deltaSeq };
  // The chain is as long as reads allow: a new line on the version halfway down it.
  const ancestor = await chainAncestor(previousHash, Math.floor(maxChainDepth / 2), maxChainDepth, lookup);
  return ancestor === null ? null : { baseHash: ancestor.hash, chainDepth: ancestor.chainDepth + 1, deltaSeq: 1 };
}

/**
 * The first blob down `hash`'s delta chain (itself included) at depth `depth` or less; null when
 * a link is missing or the chain does not end within the depth a read accepts.
 */
async function chainAncestor(hash: string, depth: number, maxChainDepth: number, lookup: LinkLookup): Promise<{ hash: string; chainDepth: number } | null> {
  let current = hash;
  for (let step = 0; step <= maxChainDepth * 4; step++) {
    const link = await lookup(current);
    if (!link) return null;
    if (link.chainDepth <= depth || link.baseHash === null) return { hash: current, chainDepth: link.chainDepth };
    current = link.baseHash;
  }
  return null;
}
