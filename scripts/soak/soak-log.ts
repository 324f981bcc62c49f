// The soak's logs: every process appends JSON lines to its own file with synchronous writes, so a
// line that was written survives the process being SIGKILLed a moment later. A writer logs what it
// is about to write (its content hash) BEFORE writing, and the outcome after; the oracle reads all
// logs back at the end.
import { closeSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** One content a writer is about to put at a path (`hash: null`: the path is about to be removed). */
export interface Intent {
  path: string;
  /** sha256 of the content; `'any'` when the writer cannot know it (a `mv`/`cp` destination). */
  hash: string | null | 'any';
  /** An Edit: the first line `#m:<old>` becomes `#m:<new>` in whatever the file holds then. */
  edit?: { old: string; new: string };
}

export type LogRecord =
  /** An operation begins; `paths: null` when it may touch any path (rewinds, recovery). */
  | { t: number; type: 'start'; proc: string; id: string; op: string; session: string | null; paths: string[] | null; intents: Intent[] }
  /** An operation ended. `outcome`: `ok`, `refused` (a typed WaypointError), `failed` (anything else). */
  | {
      t: number;
      type: 'end';
      proc: string;
      id: string;
      outcome: 'ok' | 'refused' | 'failed';
      code?: string;
      message?: string;
      /** Records the operation produced, for the oracle's timing of store records. */
      checkpointIds?: string[];
      rewindIds?: string[];
      /** Journals a store open rolled back, wholly or partly (recovery), and what it preserved before overwriting. */
      recovered?: string[];
      preserved?: Array<{ path: string; hash: string }>;
      paths?: string[];
    }
  /** The person is about to replace (hash) or remove (null) a file. */
  | { t: number; type: 'person-intent'; proc: string; id: string; path: string; hash: string | null }
  /** The person's save is done (`written`: its content reached the path); `displaced` are the trash names of what it moved away first. */
  | { t: number; type: 'person-done'; proc: string; id: string; path: string; hash: string | null; written: boolean; displaced: string[] }
  /** A file of the initial workspace. */
  | { t: number; type: 'initial'; proc: string; path: string; hash: string }
  /** The main process SIGKILLed a worker (logged right after the kill). */
  | { t: number; type: 'kill'; proc: string; victim: string; pid: number; final: boolean }
  /** A process started (its pid), or ended on its own. */
  | { t: number; type: 'spawn'; proc: string; pid: number }
  | { t: number; type: 'exit'; proc: string; code: number | null; signal: string | null };

/** An append-only JSON-lines log owned by one process. */
export class SoakLog {
  private readonly fd: number;

  constructor(
    file: string,
    readonly proc: string,
  ) {
    this.fd = openSync(file, 'a');
  }

  /** Appends one record (one `write` call: whole once it returns). */
  write(record: DistributiveOmit<LogRecord, 't' | 'proc'>): void {
    writeSync(this.fd, `${JSON.stringify({ t: Date.now(), proc: this.proc, ...record })}\n`);
  }

  close(): void {
    closeSync(this.fd);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Every record of every `*.jsonl` file in `dir`; a torn last line (killed mid-write) is skipped. */
export function readLogs(dir: string): LogRecord[] {
  const records: LogRecord[] = [];
  for (const name of readdirSync(dir)
    .filter((file) => file.endsWith('.jsonl'))
    .sort()) {
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
      if (line === '') continue;
      try {
        records.push(JSON.parse(line) as LogRecord);
      } catch {
        // the process died inside this write
      }
    }
  }
  return records.sort((a, b) => a.t - b.t);
}
