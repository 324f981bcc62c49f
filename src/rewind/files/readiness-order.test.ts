import { describe, expect, it } from 'vitest';
import { inReadiness } from './readiness-order.js';

/** A promise settled from outside, as a temp file's fsync settles when the thread pool finishes it. */
function pending(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((done, fail) => {
    resolve = done;
    reject = fail;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/**
 * Runs the order to its end while `settle` settles the temp files one after the other, each on a
 * later timer (as fsyncs finish in the thread pool while the apply waits); returns the order.
 */
async function drive(steps: string[], ready: Map<string, Promise<void>>, isPrepared: (step: string) => boolean, settle: Array<() => void>): Promise<string[]> {
  for (const [index, action] of settle.entries()) setTimeout(action, 5 * (index + 1));
  const order: string[] = [];
  for await (const step of inReadiness(steps, ready, isPrepared)) order.push(step);
  return order;
}

describe('inReadiness', () => {
  it('runs a durable write before one still syncing, keeping moves, deletes and writes without a temp file in place', async () => {
    const lock = pending();
    const small = pending();
    const other = pending();
    const ready = new Map([
      ['lock.json', lock.promise],
      ['a.txt', small.promise],
      ['b.txt', other.promise],
    ]);
    // The move and the delete wait for nothing; the large lock file syncs last.
    const order = await drive(['moved-back', 'deleted', 'lock.json', 'a.txt', 'new-dir/c.txt', 'b.txt'], ready, () => true, [
      () => small.resolve(),
      () => other.resolve(),
      () => lock.resolve(),
    ]);
    // a.txt goes before the lock; c.txt (no temp file: its directory is made by its step) waits
    // for the lock before it, and b.txt cannot jump over c.txt.
    expect(order).toEqual(['moved-back', 'deleted', 'a.txt', 'lock.json', 'new-dir/c.txt', 'b.txt']);
  });

  it('keeps the plan order when no step may go early, and takes every step exactly once', async () => {
    const first = pending();
    const second = pending();
    const ready = new Map([
      ['first', first.promise],
      ['second', second.promise],
    ]);
    const order = await drive(['first', 'second'], ready, () => false, [() => second.resolve(), () => first.resolve()]);
    expect(order).toEqual(['first', 'second']);
  });

  it('does not take a failed or unprepared write early: it comes in its place, where its caller meets the failure', async () => {
    const head = pending();
    const failed = pending();
    const unprepared = pending();
    const ready = new Map([
      ['head', head.promise],
      ['failed', failed.promise],
      ['unprepared', unprepared.promise],
    ]);
    const order = await drive(['head', 'failed', 'unprepared'], ready, (step) => step !== 'unprepared', [
      () => {
        failed.reject(new Error('fsync failed'));
        unprepared.resolve();
      },
      () => head.resolve(),
    ]);
    expect(order).toEqual(['head', 'failed', 'unprepared']);
  });
});
