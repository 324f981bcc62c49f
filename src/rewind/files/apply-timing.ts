/**
 * Phase marks through a rewind's apply, printed to stderr when `WAYPOINT_REWIND_TIMING` is set
 * (for profiling the undo; costs one branch per mark otherwise): one line per rewind, each phase's
 * duration in order, then the span of each repeated event (see `timingEvent`).
 */
const enabled = process.env.WAYPOINT_REWIND_TIMING !== undefined && process.env.WAYPOINT_REWIND_TIMING !== '';
let started = 0n;
let last = 0n;
const marks: string[] = [];
const latest = new Map<string, number>();
const earliest = new Map<string, number>();
let startedAt = 0;

/**
 * Records one occurrence of an event that happens many times and overlaps the phases (a temp file
 * written, fsynced …): printed after the phases as `name@first-last`, the first and the last
 * occurrence in ms from the start of the timeline.
 */
export function timingEvent(name: string): void {
  if (!enabled) return;
  const at = performance.now();
  latest.set(name, Math.max(latest.get(name) ?? 0, at - startedAt));
  earliest.set(name, Math.min(earliest.get(name) ?? Number.POSITIVE_INFINITY, at - startedAt));
}

/** Starts a new timeline. */
export function timingStart(): void {
  if (!enabled) return;
  started = last = process.hrtime.bigint();
  startedAt = performance.now();
  marks.length = 0;
  latest.clear();
  earliest.clear();
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
  for (const [name, at] of latest) marks.push(`${name}@${earliest.get(name)!.toFixed(1)}-${at.toFixed(1)}`);
  process.stderr.write(`[${label} ${(Number(last - started) / 1e6).toFixed(1)} ms] ${marks.join(' | ')}\n`);
}
