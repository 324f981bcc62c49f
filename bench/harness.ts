import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One measured figure. `ratio` compares it with a baseline measured in the same run. */
export interface BenchResult {
  suite: string;
  name: string;
  value: number;
  unit: 'ms' | 'bytes' | 'ops/s' | 'MB' | 'x';
  /** What the value is compared with, when it is compared. */
  baseline?: { name: string; value: number };
  /** value / baseline.value (or baseline / value for "faster than" goals, see `goal`). */
  ratio?: number;
  /** Human-readable goal, e.g. "≤ 2" or "≥ 4× faster than git". */
  goal?: string;
  /** Whether the goal was met, when there is one. */
  met?: boolean;
  note?: string;
}

export interface BenchContext {
  /** A fresh temporary directory, removed after the suite. */
  tempDir(prefix?: string): string;
  /** `--quick` shrinks sizes so a smoke run finishes fast. */
  quick: boolean;
}

export interface BenchSuite {
  name: string;
  run(context: BenchContext): Promise<BenchResult[]>;
}

/** Median wall time in ms of `fn` over `runs` runs after `warmup` unmeasured runs. */
export async function timeMedian(fn: () => unknown | Promise<unknown>, runs = 7, warmup = 2): Promise<number> {
  for (let index = 0; index < warmup; index++) await fn();
  const samples: number[] = [];
  for (let index = 0; index < runs; index++) {
    const start = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

/** Wall time in ms of one run of `fn`. */
export async function timeOnce(fn: () => unknown | Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export function createContext(quick: boolean): { context: BenchContext; cleanup(): void } {
  const dirs: string[] = [];
  return {
    context: {
      quick,
      tempDir(prefix = 'waypoint-bench-') {
        const dir = mkdtempSync(join(tmpdir(), prefix));
        dirs.push(dir);
        return dir;
      },
    },
    cleanup() {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}
