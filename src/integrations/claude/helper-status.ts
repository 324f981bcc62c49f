import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { helperPaths } from './helper-paths.js';
import { type HelperStatus, readEndpoint, tokenLine, tokensMatch } from './helper-protocol.js';

/** What `hooks status` says of a store's resident helper. */
export type HelperReport =
  | { state: 'stopped' }
  /** A live helper that does not answer `status` (still starting, or started by an older Waypoint). */
  | { state: 'running'; pid: number | null }
  | ({ state: 'serving' } & HelperStatus);

/**
 * Asks the store's resident helper (the one Claude Code's and Codex CLI's hook events go through)
 * who it is and what it recorded since it started, over the same authenticated conversation as an
 * event: its greeting is checked against the server token before the client token is sent.
 * `storePath` is where the hooks' files live (the store file, or a database store's URL file).
 */
export async function helperReport(storePath: string, waitMs = 5000): Promise<HelperReport> {
  const { endpoint: endpointPath, lock } = helperPaths(storePath);
  const pid = lockHolder(lock);
  const endpoint = readEndpoint(endpointPath);
  if (pid === null && endpoint === null) return { state: 'stopped' };
  if (endpoint === null) return { state: 'running', pid };
  const answer = await new Promise<string | null>((resolvePromise) => {
    let received = '';
    let sent = false;
    const connection = connect(endpoint.port, '127.0.0.1');
    const finish = (result: string | null) => {
      clearTimeout(timer);
      connection.destroy();
      resolvePromise(result);
    };
    const timer = setTimeout(() => finish(null), waitMs);
    connection.setEncoding('utf8');
    connection.on('data', (chunk: string) => {
      received += chunk;
      const newline = received.indexOf('\n');
      if (newline < 0) return;
      if (sent) return finish(received.slice(0, newline));
      if (!tokensMatch(received.slice(0, newline), endpoint.serverToken)) return finish(null);
      received = received.slice(newline + 1);
      sent = true;
      connection.write(`${tokenLine(endpoint.clientToken, 'status')}\0`);
    });
    connection.on('error', () => finish(null));
    connection.on('close', () => finish(null));
  });
  try {
    const status = JSON.parse(answer ?? '') as HelperStatus;
    if (typeof status.pid === 'number' && typeof status.events?.codex === 'number') return { state: 'serving', ...status };
  } catch {
    // `denied` (an older helper), or no answer.
  }
  return pid === null ? { state: 'stopped' } : { state: 'running', pid };
}

/** The pid in the helper's lock when that process is alive, else null. */
function lockHolder(lock: string): number | null {
  try {
    const pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}
