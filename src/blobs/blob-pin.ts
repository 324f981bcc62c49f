import type { Store } from '../store/store.js';

/** What pinning needs from a store (backends without it pin nothing, and their GC is not safe beside writers). */
export type BlobPinBackend = Partial<Pick<Store, 'recordWriteIntent' | 'finishWriteIntent'>>;

/**
 * Blobs kept from garbage collection while a write is in flight: taken *before* the blobs are
 * stored (or found already stored), released once the row that names them committed. A pin is a
 * write intent of this process in the store, so it holds against a GC in any process; a crashed
 * process's pins expire (the next sweep, or opening the store, removes them).
 */
export interface BlobPin {
  /** The write intent holding the pin (null when the backend cannot pin). */
  readonly id: string | null;
  /** Let the blobs go. Idempotent; call it after the referencing row committed, or when giving up. */
  release(): Promise<void>;
}

/**
 * Pins `hashes` (include the delta bases a write may use) for a write in flight.
 *
 * @example
 * const pin = await pinBlobs(store, [hashContent(content)]);
 * try {
 *   const [hash] = await blobs.putMany([content]);
 *   await store.setBlobPins('my-owner', [hash]);
 * } finally {
 *   await pin.release();
 * }
 */
export async function pinBlobs(store: BlobPinBackend, hashes: readonly string[], options: { sessionId?: string | null } = {}): Promise<BlobPin> {
  if (!store.recordWriteIntent || !store.finishWriteIntent || hashes.length === 0) return { id: null, release: async () => undefined };
  const intent = await store.recordWriteIntent({ hashes, sessionId: options.sessionId ?? null });
  let released = false;
  return {
    id: intent.id,
    release: async () => {
      if (released) return;
      released = true;
      await store.finishWriteIntent!(intent.id);
    },
  };
}
