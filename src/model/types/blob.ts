/** How a blob's bytes are kept: whole (raw, or compressed: `deflate` covers deflate and Brotli, told apart by the first byte) or as a delta against another blob. */
export type BlobEncoding = 'raw' | 'deflate' | 'delta';

/** Index record of a stored blob (content address + where and how its bytes are kept). */
export interface BlobRecord {
  hash: string;
  /** Size of the original content in bytes. */
  size: number;
  /** Size of the stored (encoded) bytes. */
  storedSize: number;
  encoding: BlobEncoding;
  /** For deltas: the blob this one is expressed against. */
  baseHash: string | null;
  /** Length of the delta chain down to a whole blob (0 for whole blobs). */
  chainDepth: number;
  createdAt: number;
}
