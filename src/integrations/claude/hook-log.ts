import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { failureLogPath } from './hook-paths.js';

/** One failure of the hook handler, as logged. */
export interface HookFailure {
  at: string;
  event: string | null;
  claudeSessionId: string | null;
  code: string;
  message: string;
}

/** Appends a failure to the log beside the store; a log that cannot be written is given up silently (the agent must go on). */
export function logHookFailure(storePath: string, failure: Omit<HookFailure, 'at'>): void {
  const path = failureLogPath(storePath);
  try {
    mkdirSync(dirname(path), { recursive: true });
    appendFileSync(path, `${JSON.stringify({ at: new Date().toISOString(), ...failure })}\n`);
  } catch {
    // Nowhere left to report it.
  }
}

/** The newest `count` failures, newest last. */
export function recentHookFailures(storePath: string, count = 5): HookFailure[] {
  let text: string;
  try {
    text = readFileSync(failureLogPath(storePath), 'utf8');
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
