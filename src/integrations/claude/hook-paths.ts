import { dirname, join } from 'node:path';

/** Where the hook handler keeps its own files: beside the store, in `claude-hooks/`. */
export function hooksDir(storePath: string): string {
  return join(dirname(storePath), 'claude-hooks');
}

/** The handler's failure log (one JSON line a failure), read by `waypoint hooks status`. */
export function failureLogPath(storePath: string): string {
  return join(hooksDir(storePath), 'failures.jsonl');
}

export function sessionStatePath(storePath: string, sessionId: string): string {
  return join(hooksDir(storePath), 'sessions', `${sessionId}.json`);
}

export function sessionLockPath(storePath: string, sessionId: string): string {
  return join(hooksDir(storePath), 'locks', `${sessionId}.lock`);
}
