import { expect } from 'vitest';
import { WaypointError } from '../../model/index.js';
import type { Store } from '../store.js';

/** A fresh, empty store for one test case, and how to reopen it from its persisted state. */
export interface StoreHarness {
  store: Store;
  /** Close and reopen the same store (persistence across restarts). */
  reopen(): Promise<Store>;
  cleanup(): Promise<void>;
}

export interface StoreConformanceOptions {
  /** Backend name shown in test titles. */
  name: string;
  create(): Promise<StoreHarness>;
  /** Case titles to skip, each with the reason (never skip silently). */
  skip?: Record<string, string>;
}

/** Asserts `promise` rejects with a WaypointError of `code`, and returns it. */
export async function expectCode(promise: Promise<unknown>, code: string): Promise<WaypointError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WaypointError);
    expect((error as WaypointError).code).toBe(code);
    expect((error as WaypointError).message.length).toBeGreaterThan(10);
    return error as WaypointError;
  }
  throw new Error(`expected a WaypointError with code ${code}, but the promise resolved`);
}

export const text = (value: string) => ({ type: 'text', text: value });
