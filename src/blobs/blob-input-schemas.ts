import { z } from 'zod';
import { bytes, count, parseInput } from '../model/index.js';

/**
 * The checks the `BlobStore` entry points run on their arguments, so a wrong type is an
 * `INVALID_ARGUMENT` naming the parameter (`content`, `items.3.content`, `hash` …) instead of a
 * TypeError from hashing or SQLite. Validation only: the caller's Buffers are used as given.
 */

const hash = z.string();
const putOptions = { baseHash: z.string().optional() };

export const PutBlobOptionsSchema = z.object(putOptions).loose();
export const PutManyOptionsSchema = z.object({ compression: z.enum(['auto', 'eager', 'deferred']).optional() }).loose();
export const BlobInputSchema = z.union([bytes, z.object({ content: bytes, hash: hash.optional(), verified: z.boolean().optional(), ...putOptions }).loose()]);
export const BlobInputsSchema = z.array(BlobInputSchema);
export const CompressOptionsSchema = z.object({ budgetMs: count.optional(), maxBytes: count.optional() }).loose();
export const GcOptionsSchema = z.object({ dryRun: z.boolean().optional() }).loose();
export const ReadOptionsSchema = z.object({ readOnly: z.boolean().optional() }).loose();

/** `put(content, options)`. */
export function checkPut(content: unknown, options: unknown): void {
  parseInput(bytes, content, 'content');
  parseInput(PutBlobOptionsSchema, options, 'options');
}

/**
 * `putMany` / `beginPutMany(items, options)`. A batch can hold thousands of items (a first scan),
 * so a plain loop vouches for the usual shape and the schema runs only to name what is wrong.
 */
export function checkPutMany(items: unknown, options: unknown): void {
  if (!Array.isArray(items) || !items.every(isBlobInput)) parseInput(BlobInputsSchema, items, 'items');
  parseInput(PutManyOptionsSchema, options, 'options');
}

/** One hash (`get`, `has`, `stat`). */
export function checkHash(value: unknown): void {
  parseInput(hash, value, 'hash');
}

/** A list of hashes (`getMany`, `getManySettled`). */
export function checkHashes(values: unknown): void {
  if (!Array.isArray(values) || !values.every((value) => typeof value === 'string')) parseInput(z.array(hash), values, 'hashes');
}

/** An options object of `compress` or `gc`. */
export function checkOptions(schema: z.ZodType, options: unknown): void {
  parseInput(schema, options, 'options');
}

function isBlobInput(item: unknown): boolean {
  if (item instanceof Uint8Array) return true;
  if (typeof item !== 'object' || item === null) return false;
  const input = item as { content?: unknown; hash?: unknown; baseHash?: unknown };
  return (
    input.content instanceof Uint8Array &&
    (input.hash === undefined || typeof input.hash === 'string') &&
    (input.baseHash === undefined || typeof input.baseHash === 'string')
  );
}
