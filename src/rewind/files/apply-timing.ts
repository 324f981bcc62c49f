/**
 * Phase marks through a rewind's apply, printed to stderr when `WAYPOINT_REWIND_TIMING` is set
 * (for profiling the undo; costs one branch per mark otherwise).
 */
const enabled = process.env.WAYPOINT_REWIND_TIMING !== undefined && process.env.WAYPOINT_REWIND_TIMING !== '';
let started = 0n;
let last = 0n;
const marks: string[] = [];

/** Starts a new timeline. */
export function timingStart(): void {
  if (!enabled) return;
  started = last = process.hrtime.bigint();
  marks.length = 0;
}

/** Records the time since the previous mark under `name`. */
export function timingMark(name: string): void {
  if (!enabled) return;
  const now = process.hrtime.bigint();
  marks.push(`${name} ${(Number(now - last) / 1e6).toFixed(1)}`);
  last = now;
}

/** Prints the timeline (one line) and its total. */
export function timingEnd(label: string): void {
  if (!enabled) return;
  timingMark('end');
  process.stderr.write(`[${label} ${(Number(last - started) / 1e6).toFixed(1)} ms] ${marks.join(' | ')}\n`);
}
