import { z } from 'zod';
import { callable, withMethods } from '../model/index.js';

/** `new SessionForker(options)`: a store, optionally a blob store and an event bus. */
export const SessionForkerOptionsSchema = z
  .object({
    store: withMethods('getSession', 'forkSession'),
    blobs: withMethods('getMany').optional(),
    events: withMethods('emit').optional(),
  })
  .loose();

/** What `fork` takes beside the `ForkRequest` itself, checked before the request is read. */
export const ForkCallSchema = z
  .object({
    preview: z.object({}).loose().optional(),
    onProgress: callable.optional(),
  })
  .loose();
