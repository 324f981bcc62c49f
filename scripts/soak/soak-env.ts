// What every soak process shares: the directory layout, a seeded random source, the contents the
// writers make, and the path locks that keep the person and a shell command off the same file.
import { createHash } from 'node:crypto';
import { linkSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The soak's directories, all on one file system (the person renames and links between them). */
export interface SoakLayout {
  root: string;
  /** The one shared workspace every shared session works in. */
  work: string;
  storePath: string;
  logs: string;
  /** Where the person moves what it displaces, so the oracle knows exactly what the person replaced. */
  trash: string;
  /** The person's temp files (outside the workspace, so no scan sees them). */
  personTmp: string;
  locks: string;
  /** Workspaces of the placeholder sessions retention deletes. */
  scratch: string;
  /** Exists once the run should end. */
  stopFile: string;
}

export function layoutOf(root: string): SoakLayout {
  return {
    root,
    work: join(root, 'work'),
    storePath: join(root, 'store', 'waypoint.db'),
    logs: join(root, 'logs'),
    trash: join(root, 'trash'),
    personTmp: join(root, 'person-tmp'),
    locks: join(root, 'locks'),
    scratch: join(root, 'scratch'),
    stopFile: join(root, 'STOP'),
  };
}

/** What a worker or the person is started with (argv[2], JSON). */
export interface ProcessConfig {
  root: string;
  proc: string;
  seed: number;
  /** Workspace-relative paths the processes write. */
  paths: string[];
  /** Parts of the soak left out (`gc`: no gc or retention; `forks`; `shell`; `rewinds`). */
  without: string[];
}

/** The files of the shared workspace (a flat level and one subdirectory). */
export const SOAK_PATHS: string[] = [
  ...Array.from({ length: 8 }, (_, index) => `f${index}.txt`),
  ...Array.from({ length: 4 }, (_, index) => `dir/g${index}.txt`),
];

/** Title prefix of the sessions retention may delete (created first, so they are the oldest). */
export const PLACEHOLDER_TITLE = 'soak placeholder';

/** mulberry32: small, fast, and the same sequence for the same seed. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let value = this.state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  }

  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  between(low: number, high: number): number {
    return low + this.next() * (high - low);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  /** A fresh token for contents and markers (lowercase alphanumerics, safe inside shell quotes). */
  token(): string {
    return `${Date.now().toString(36)}${this.int(36 ** 6)
      .toString(36)
      .padStart(6, '0')}`;
  }

  /** Picks a key with probability proportional to its weight. */
  weighted<K extends string>(weights: Record<K, number>): K {
    const entries = Object.entries(weights) as Array<[K, number]>;
    let roll = this.next() * entries.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [key, weight] of entries) {
      roll -= weight;
      if (roll < 0) return key;
    }
    return entries.at(-1)![0];
  }
}

/** Derives a child seed (one per process incarnation) from the run's seed. */
export function deriveSeed(seed: number, label: string): number {
  return createHash('sha256').update(`${seed}:${label}`).digest().readUInt32LE(0);
}

export function sha256(content: Buffer | string): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * A unique file content: a first line `#m:<token>` (the marker an Edit replaces), then lines
 * naming the writer; now and then long, so the blob store stores deltas.
 */
export function makeContent(random: Random, writer: string): string {
  const token = random.token();
  const lines = random.chance(0.1) ? 200 + random.int(200) : 2 + random.int(20);
  const body = Array.from({ length: lines }, (_, index) => `${writer} ${token} line ${index}`).join('\n');
  return `#m:${token}\n${body}\n`;
}

/** The marker token of a content, or null. */
export function markerOf(text: string): string | null {
  return /^#m:([0-9a-z]+)\n/.exec(text)?.[1] ?? null;
}

const lockName = (path: string): string => path.replace(/\//g, '__');

/**
 * Takes the locks of `paths` (all or none) for this pid: a lock file is created whole by a link,
 * so its content always names its owner, and the main process removes those of a killed worker.
 */
export function tryLock(layout: SoakLayout, paths: readonly string[], owner: string): boolean {
  const taken: string[] = [];
  const staged = join(layout.locks, `.${owner}.${process.pid}.tmp`);
  writeFileSync(staged, String(process.pid));
  try {
    for (const path of [...new Set(paths)].sort()) {
      try {
        linkSync(staged, join(layout.locks, lockName(path)));
        taken.push(path);
      } catch {
        unlock(layout, taken);
        return false;
      }
    }
    return true;
  } finally {
    unlinkSync(staged);
  }
}

export function unlock(layout: SoakLayout, paths: readonly string[]): void {
  for (const path of new Set(paths)) {
    try {
      unlinkSync(join(layout.locks, lockName(path)));
    } catch {
      // already gone
    }
  }
}

/** Removes the locks a (dead) process held. */
export function releaseLocksOf(layout: SoakLayout, pid: number): void {
  for (const name of readdirSync(layout.locks)) {
    try {
      if (readFileSync(join(layout.locks, name), 'utf8') === String(pid)) unlinkSync(join(layout.locks, name));
    } catch {
      // released meanwhile
    }
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
