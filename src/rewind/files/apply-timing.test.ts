import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** Runs a real two-file cascade rewind in a child process, with `WAYPOINT_REWIND_TIMING` as given. */
function timedRewind(timing: string | undefined): { stdout: string; stderr: string } {
  const env = { ...process.env };
  delete env.WAYPOINT_REWIND_TIMING;
  if (timing !== undefined) env.WAYPOINT_REWIND_TIMING = timing;
  const child = spawnSync(process.execPath, ['--import', 'tsx', 'test/fixtures/timed-rewind-child.ts'], { env, encoding: 'utf8', timeout: 60_000 });
  expect(child.status, child.stderr).toBe(0);
  return { stdout: child.stdout, stderr: child.stderr };
}

describe('the rewind timeline (WAYPOINT_REWIND_TIMING)', () => {
  it('prints one line per rewind: the phases in order, then the span of each temp-file event, within the total', () => {
    const { stdout, stderr } = timedRewind('1');
    expect(stdout).toBe('rewound 2 a.txt=a2\n');
    const lines = stderr.split('\n').filter((line) => line.startsWith('[rewind '));
    expect(lines).toHaveLength(1);
    const [, total, body] = /^\[rewind ([\d.]+) ms\] (.*)$/.exec(lines[0]!)!;
    const parts = body!.split(' | ');
    const phases = parts.filter((part) => !part.includes('@')).map((part) => part.slice(0, part.lastIndexOf(' ')));
    for (const phase of ['op-session', 'select', 'prefetch', 'createJournal', 'syncJournal', 'steps(2)', 'commit', 'end']) expect(phases).toContain(phase);
    expect(phases.indexOf('syncJournal')).toBeLessThan(phases.indexOf('steps(2)'));
    const durations = parts.filter((part) => !part.includes('@')).map((part) => Number(part.slice(part.lastIndexOf(' ') + 1)));
    // The phases add up to the total, but for each one's rounding to 0.1 ms.
    const sum = durations.reduce((all, value) => all + value, 0);
    expect(Math.abs(sum - Number(total))).toBeLessThanOrEqual(0.05 * durations.length + 0.05);
    const events = new Map(
      parts
        .filter((part) => part.includes('@'))
        .map((part) => {
          const [name, span] = part.split('@');
          const [first, last] = span!.split('-').map(Number);
          return [name!, { first: first!, last: last! }];
        }),
    );
    expect([...events.keys()]).toEqual(expect.arrayContaining(['temp-issued', 'temp-written', 'temp-sync-begun', 'temp-synced', 'dirs-synced']));
    for (const { first, last } of events.values()) {
      expect(first).toBeLessThanOrEqual(last);
      expect(last).toBeLessThanOrEqual(Number(total));
    }
    // Temp files are written after they are begun, all before the first fsync starts, and every one is durable before the directories are synced.
    expect(events.get('temp-issued')!.first).toBeLessThanOrEqual(events.get('temp-written')!.first);
    expect(events.get('temp-written')!.last).toBeLessThanOrEqual(events.get('temp-sync-begun')!.first);
    expect(events.get('temp-sync-begun')!.last).toBeLessThanOrEqual(events.get('temp-synced')!.last);
    expect(events.get('temp-synced')!.last).toBeLessThanOrEqual(events.get('dirs-synced')!.first);
  });

  it('prints nothing when the variable is unset or empty', () => {
    for (const timing of [undefined, '']) {
      const { stdout, stderr } = timedRewind(timing);
      expect(stdout).toBe('rewound 2 a.txt=a2\n');
      expect(stderr).not.toContain('[rewind ');
    }
  });
});
