import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { failureLogPath, type HookAgent } from './hook-paths.js';

/** One failure of an agent's hook handler, as logged. */
export interface HookFailure {
  at: string;
  event: string | null;
  /** The agent's own session id (Claude's or Codex's), when the event named one. */
  agentSessionId: string | null;
  code: string;
  message: string;
}

/** Appends a failure to the agent's log beside the store; a log that cannot be written is given up silently (the agent must go on). */
export function logHookFailure(storePath: string, failure: Omit<HookFailure, 'at'>, agent: HookAgent = 'claude'): void {
  const path = failureLogPath(storePath, agent);
  try {
    mkdirSync(dirname(path), { recursive: true });
    appendFileSync(path, `${JSON.stringify({ at: new Date().toISOString(), ...failure })}\n`);
  } catch {
    // Nowhere left to report it.
  }
}

/** The newest `count` failures of the agent's handler, newest last. */
export function recentHookFailures(storePath: string, count = 5, agent: HookAgent = 'claude'): HookFailure[] {
  let text: string;
  try {
    text = readFileSync(failureLogPath(storePath, agent), 'utf8');
  } catch {
    return [];
  }
  const failures: HookFailure[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      failures.push(JSON.parse(line) as HookFailure);
    } catch {
      // A line cut by a crash.
    }
  }
  return failures.slice(-count);
}
