/**
 * Phase marks through a rewind's apply, printed to stderr when `WAYPOINT_REWIND_TIMING` is set
 * (for profiling the undo; costs one branch per mark otherwise): one line per rewind, each phase's
 * duration in order, then the span of each repeated event (see `timingEvent`).
 */
const enabled = process.env.WAYPOINT_REWIND_TIMING !== undefined && process.env.WAYPOINT_REWIND_TIMING !== '';
let started = 0n;
let last = 0n;
const marks: string[] = [];
/** Each event's first and last occurrence, in ms from the start. */
const events = new Map<string, { first: number; last: number }>();
let startedAt = 0;

/**
 * Records one occurrence of an event that happens many times and overlaps the phases (a temp file
 * written, fsynced …): printed after the phases as `name@first-last`, the first and the last
 * occurrence in ms from the start of the timeline.
 */
export function timingEvent(name: string): void {
  if (!enabled) return;
  const at = performance.now() - startedAt;
  const seen = events.get(name);
  if (seen) seen.last = at;
  else events.set(name, { first: at, last: at });
}

/** Starts a new timeline. */
export function timingStart(): void {
  if (!enabled) return;
  started = last = process.hrtime.bigint();
  startedAt = performance.now();
  marks.length = 0;
  events.clear();
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
  for (const [name, { first, last }] of events) marks.push(`${name}@${first.toFixed(1)}-${last.toFixed(1)}`);
  process.stderr.write(`[${label} ${(Number(last - started) / 1e6).toFixed(1)} ms] ${marks.join(' | ')}\n`);
}
