import { z } from 'zod';

/**
 * Schema pieces for validating library entry points: values zod has no built-in schema for
 * (functions, Buffers, service objects). Entry points validate their arguments with these and
 * then go on with the caller's own values (the parsed copy is not used), so class instances and
 * extra fields pass through untouched.
 */

/** A function (a callback, the command to run). */
export const callable = z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', 'must be a function');

/** Binary content: a Buffer (or any Uint8Array). */
export const bytes = z.custom<Buffer>((value) => value instanceof Uint8Array, 'must be a Buffer');

/** An object (a store, a blob store, a handle) that has each of the named methods. */
export function withMethods<T>(...methods: string[]): z.ZodType<T> {
  const description = methods.length ? `must be an object with ${methods.join(', ')}` : 'must be an object';
  return z.custom<T>(
    (value) => typeof value === 'object' && value !== null && methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function'),
    description,
  );
}

/** A whole number of bytes, files or milliseconds (0 or more). */
export const count = z.number().int().nonnegative();
