import { createHash } from 'node:crypto';

/**
 * The content address of a blob: lowercase hex sha256 of its exact bytes. The workspace layer
 * hashes files with this same function, so a file's hash is the hash of its blob.
 *
 * @example
 * hashContent(Buffer.from('')) // 'e3b0c442…b855'
 */
export function hashContent(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}
