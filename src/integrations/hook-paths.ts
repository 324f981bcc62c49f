import { dirname, join } from 'node:path';

/** The agents whose hooks Waypoint records; each keeps its handler's files in its own folder beside the store. */
export type HookAgent = 'claude' | 'codex';

/** Where an agent's hook handler keeps its own files: beside the store, in `claude-hooks/` or `codex-hooks/`. */
export function hooksDir(storePath: string, agent: HookAgent = 'claude'): string {
  return join(dirname(storePath), `${agent}-hooks`);
}

/** The handler's failure log (one JSON line a failure), read by `waypoint hooks status`. */
export function failureLogPath(storePath: string, agent: HookAgent = 'claude'): string {
  return join(hooksDir(storePath, agent), 'failures.jsonl');
}

export function sessionStatePath(storePath: string, sessionId: string, agent: HookAgent = 'claude'): string {
  return join(hooksDir(storePath, agent), 'sessions', `${sessionId}.json`);
}

export function sessionLockPath(storePath: string, sessionId: string, agent: HookAgent = 'claude'): string {
  return join(hooksDir(storePath, agent), 'locks', `${sessionId}.lock`);
}
