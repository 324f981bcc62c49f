/**
 * The steps of an apply in the order they go in: the plan's order, except that while the next
 * step's temp file is still being made durable, a later one whose temp file is durable already
 * goes first — so the replacements run while the slowest fsyncs (a large file's) are still in
 * flight, instead of all after them. Only a step with a temp file (`ready`) goes early, and only
 * past other such steps: moves, deletes and writes without a temp file (a directory to create or
 * to replace first) keep their places relative to everything else. A step whose temp file failed,
 * or could not be made yet (`isPrepared` false once `ready` settles), is not taken early; it comes
 * in its place, where its caller awaits it and meets the failure or makes the write itself.
 */
export async function* inReadiness<Step>(
  steps: readonly Step[],
  ready: ReadonlyMap<Step, Promise<void>>,
  isPrepared: (step: Step) => boolean,
): AsyncGenerator<Step> {
  const durable = new Set<Step>();
  const settled = new Set<Step>();
  for (const [step, write] of ready)
    write.then(
      () => {
        durable.add(step);
        settled.add(step);
      },
      () => settled.add(step),
    );
  const pending = [...steps];
  while (pending.length > 0) {
    const head = pending[0]!;
    if (!ready.has(head) || settled.has(head)) {
      pending.shift();
      yield head;
      continue;
    }
    // The run of steps with temp files that starts at the head: any durable one among them may go now.
    let run = 1;
    while (run < pending.length && ready.has(pending[run]!)) run++;
    const early = pending.slice(0, run).findIndex((step) => durable.has(step) && isPrepared(step));
    if (early > 0) {
      yield pending.splice(early, 1)[0]!;
      continue;
    }
    await Promise.race(
      pending
        .slice(0, run)
        .filter((step) => !settled.has(step))
        .map((step) => ready.get(step)!.then(settle, settle)),
    );
  }
}

function settle(): void {
  // The step's state is read from `settled` and `durable`, updated by the handlers above (which ran first).
}
