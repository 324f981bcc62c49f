import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { openWaypoint } from '../../engine/index.js';
import { runCodexHook } from '../codex/hook-handler.js';
import { runClaudeHook } from './hook-handler.js';
import { ChangeTracker } from './change-tracker.js';
import { helperIdleMs, helperPaths } from './helper-paths.js';
import {
  type HelperEndpoint,
  HelperRequestReader,
  type HelperStatus,
  newEndpoint,
  readEndpoint,
  REPLY_DENIED,
  REPLY_OK,
  writeEndpoint,
} from './helper-protocol.js';

/** How long a connection may stay silent (no request yet, or no reply read) before it is dropped. */
const CONNECTION_IDLE_MS = 120_000;
/** Work an event left for later runs once no event came for this long (a tool call's PostToolUse follows its PreToolUse at once when the command is quick). */
const DEFERRED_AFTER_IDLE_MS = 250;

/**
 * The resident helper of one store: keeps the engine loaded and the store open, so a hook event
 * costs the client's start and the event's own work instead of loading and opening everything
 * again. It records Claude Code's and Codex CLI's events alike (the request names the agent, see
 * `helper-protocol.ts`), each through its agent's handler, which logs its failures in its own
 * folder. The hook client starts it on demand (`waypoint hooks serve claude|codex`). One per store: it
 * holds a lock directory with its pid for its lifetime (a dead holder's is taken over), so
 * concurrent starts leave one helper and the others exit at once. Events are handled one at a
 * time, each under its session's lock like any hook process, and answered `ok` when recorded. It
 * listens on 127.0.0.1 only, on a port it publishes with its tokens in a 0600 file beside the store
 * (see `helper-protocol.ts`): the bash client and the Node client speak the same protocol.
 * Its workspace scans go through a {@link ChangeTracker} (`WAYPOINT_HOOK_TRACKING=off`: none).
 * It stops after `WAYPOINT_HOOK_HELPER_IDLE_MS` (default 10 minutes) without events, or when its
 * store's directory is gone. Resolves when it has stopped. `storePath` is the store file, or for a
 * database store (`location`, a URL) the file its URL is kept in: the helper's files live beside it.
 */
export async function serveHookHelper(storePath: string, env: NodeJS.ProcessEnv = process.env, location: string = storePath): Promise<void> {
  const { endpoint: endpointPath, lock } = helperPaths(storePath);
  mkdirSync(dirname(lock), { recursive: true });
  if (!takeLock(lock)) return;
  const waypoint = await openWaypoint({ path: location });
  // Scans answer unchanged paths from memory (Linux: inotify delivers changes in order, before the
  // next event's scan; elsewhere every scan reads the whole tree). This helper starts empty.
  const tracker = process.platform === 'linux' && env.WAYPOINT_HOOK_TRACKING !== 'off' ? new ChangeTracker() : null;
  let queue: Promise<void> = Promise.resolve();
  // The work events left for later (see `ClaudeHookOptions.defer`), run when no event came for a
  // while; if events keep coming, an event's own save does the same work when it must.
  const deferred: Array<() => Promise<void>> = [];
  let deferredTimer: NodeJS.Timeout | null = null;
  const holdDeferred = () => {
    if (deferredTimer !== null) clearTimeout(deferredTimer);
    deferredTimer = null;
  };
  const runDeferredWhenIdle = () => {
    holdDeferred();
    if (deferred.length === 0) return;
    deferredTimer = setTimeout(() => {
      deferredTimer = null;
      const tasks = deferred.splice(0);
      queue = queue.then(async () => {
        for (const task of tasks) {
          try {
            await task();
          } catch {
            // Only a rewrite a later save still does: nothing is lost when it fails.
          }
        }
        last = Date.now();
      });
    }, DEFERRED_AFTER_IDLE_MS);
    deferredTimer.unref();
  };
  let last = Date.now();
  let endpoint: HelperEndpoint | null = null;
  const startedAt = new Date().toISOString();
  const events = { claude: 0, codex: 0 };
  const server = createServer((connection) => serve(connection));
  const serve = (connection: Socket) => {
    if (endpoint === null) return connection.destroy();
    const { port } = endpoint;
    const reader = new HelperRequestReader(endpoint.clientToken);
    let taken = false;
    connection.setNoDelay(true);
    // A client that connects and never finishes its request cannot keep a stopping helper alive.
    connection.setTimeout(CONNECTION_IDLE_MS, () => connection.destroy());
    connection.on('error', () => {});
    connection.write(`${endpoint.serverToken}\n`);
    connection.on('data', (chunk: Buffer) => {
      if (taken) return;
      const request = reader.feed(chunk);
      if (request === null) return;
      taken = true;
      if (request === 'denied') {
        connection.end(REPLY_DENIED);
        return;
      }
      if (request.kind === 'status') {
        const status: HelperStatus = { pid: process.pid, port, startedAt, events: { ...events } };
        connection.end(`${JSON.stringify(status)}\n`);
        return;
      }
      const { kind, stdin } = request;
      holdDeferred();
      queue = queue.then(async () => {
        last = Date.now();
        await tracker?.settle();
        const options = { storePath, waypoint, ...(tracker ? { scanIo: tracker.io } : {}), defer: (task: () => Promise<void>) => deferred.push(task) };
        if (kind === 'codex') await runCodexHook(stdin, options);
        else await runClaudeHook(stdin, options);
        events[kind]++;
        last = Date.now();
        connection.end(REPLY_OK);
        runDeferredWhenIdle();
      });
    });
  };
  // Loopback only: the port is reachable from this machine alone, and the tokens keep other local users out.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  endpoint = newEndpoint((server.address() as AddressInfo).port);
  writeEndpoint(endpointPath, endpoint);
  const idle = helperIdleMs(env);
  await new Promise<void>((resolve) => {
    const timer = setInterval(
      () => {
        const gone = !existsSync(storePath) || !existsSync(lock);
        if (!gone && Date.now() - last < idle) return;
        clearInterval(timer);
        // No new client finds this helper from here on; one that read the file just before gets a
        // refused connection and falls back. Connections already taken are served to their end
        // (close's callback waits for them) before the store closes.
        removeOwnEndpoint(endpointPath, endpoint!);
        server.close(() => resolve());
      },
      Math.min(idle, 1000),
    );
  });
  await queue;
  tracker?.close();
  await waypoint.close();
  releaseLock(lock);
}

/** Removes the endpoint file if it is still this helper's (a newer helper's is left alone). */
function removeOwnEndpoint(path: string, endpoint: HelperEndpoint): void {
  if (readEndpoint(path)?.serverToken === endpoint.serverToken) rmSync(path, { force: true });
}

/** Takes the helper lock: false when a live helper holds it. */
function takeLock(lock: string): boolean {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (!holderIsDead(lock)) return false;
    try {
      const aside = `${lock}.stale-${process.pid}`;
      renameSync(lock, aside);
      rmSync(aside, { recursive: true, force: true });
    } catch {
      // Another helper took it over first.
    }
  }
  return false;
}

function releaseLock(lock: string): void {
  try {
    if (readFileSync(join(lock, 'pid'), 'utf8') === String(process.pid)) rmSync(lock, { recursive: true, force: true });
  } catch {
    // Already gone.
  }
}

function holderIsDead(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
  } catch {
    return false;
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
