// Loaded for every hook event: only node: modules and engine-free files here; the engine is
// imported only when the event must be handled in this process.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { defaultStorePath } from '../../engine/store-location.js';
import { packagePath } from '../../model/package-root.js';
import { hookStoreFromFlags, type HookStore } from '../hook-store.js';
import { helperPaths, helperRunning } from './helper-paths.js';
import { type HelperEndpoint, readEndpoint, REPLY_OK, tokenLine, tokensMatch } from './helper-protocol.js';
import { changesNothing } from './tool-coverage.js';

/** How long the client waits for the helper to record an event before leaving it to the helper. */
const REPLY_TIMEOUT_MS = 55_000;

/** The agents whose events the helper records; `hooks run <agent>`'s second word. */
type ClientAgent = 'claude' | 'codex';

/**
 * `waypoint hooks run claude|codex [--store f | --store-file f]` and `waypoint hooks serve claude|codex […]`,
 * without loading the rest of the CLI. `run` hands the event on stdin to the store's resident
 * helper over 127.0.0.1 (see `helper-protocol.ts`; one helper per store records both agents'
 * events), starting the helper when there is none (that event is then handled in this process);
 * `WAYPOINT_HOOK_HELPER=off` handles every event in-process. Always resolves to 0: the agent must go
 * on whatever happens here (failures are logged in the agent's folder, see `runClaudeHook` and
 * `runCodexHook`).
 */
export async function runHookCommand(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    await hookCommandBody(argv, env);
  } catch {
    // The handlers log their own failures; one before them (stdin, loading a module) must not stop the agent either.
  }
  return 0;
}

async function hookCommandBody(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const agent: ClientAgent = argv[1] === 'codex' ? 'codex' : 'claude';
  let store: HookStore;
  try {
    store = hookStoreFromFlags(argv, defaultStorePath(env), env);
  } catch (error) {
    await unreadableStore(argv, env, error, agent);
    return;
  }
  const { storePath, location } = store;
  if (argv[0] === 'serve') {
    if (helperRunning(helperPaths(storePath).lock)) return;
    const { serveHookHelper } = await import('./hook-helper.js');
    await serveHookHelper(storePath, env, location);
    return;
  }
  const known = argv[1] === 'claude' || argv[1] === 'codex';
  const stdin = await readStdin();
  if (agent === 'claude' && known && skippable(stdin)) return;
  const endpoint = readEndpoint(helperPaths(storePath).endpoint);
  // A NUL ends an event on the wire (an event holding one is no JSON: the handler logs it).
  if (known && env.WAYPOINT_HOOK_HELPER !== 'off' && !stdin.includes('\0')) {
    const reply = endpoint === null ? 'unavailable' : await sendToHelper(endpoint, agent, stdin);
    if (reply !== 'unavailable') return;
    startHelper(store.flags);
  }
  if (agent === 'codex') {
    const { runCodexHook } = await import('../codex/hook-handler.js');
    await runCodexHook(stdin, { storePath, location });
    return;
  }
  const { runClaudeHook } = await import('./hook-handler.js');
  await runClaudeHook(known ? stdin : '', { storePath, location });
}

/** The file keeping a database store's URL cannot be read: the failure is logged beside it (`hooks status` shows it). */
async function unreadableStore(argv: readonly string[], env: NodeJS.ProcessEnv, error: unknown, agent: ClientAgent): Promise<void> {
  if (argv[0] !== 'serve') await readStdin();
  const { resolve } = await import('node:path');
  const { logHookFailure } = await import('../hook-log.js');
  const file = argv[argv.indexOf('--store-file') + 1] ?? defaultStorePath(env);
  logHookFailure(
    resolve(file),
    {
      event: null,
      agentSessionId: null,
      code: 'HOOK_STORE_UNREADABLE',
      message: `Cannot read the store to record into: ${error instanceof Error ? error.message : String(error)}`,
    },
    agent,
  );
}

function skippable(stdin: string): boolean {
  try {
    return changesNothing(JSON.parse(stdin) as { hook_event_name?: unknown; tool_name?: unknown });
  } catch {
    return false;
  }
}

/** `ok`: recorded; `timeout`: the helper has it but is slow (it finishes it); `unavailable`: no helper took it. */
function sendToHelper(endpoint: HelperEndpoint, agent: ClientAgent, stdin: string): Promise<'ok' | 'timeout' | 'unavailable'> {
  return new Promise((resolvePromise) => {
    let received = '';
    let sent = false;
    const connection = connect(endpoint.port, '127.0.0.1');
    const timer = setTimeout(() => finish(sent ? 'timeout' : 'unavailable'), REPLY_TIMEOUT_MS);
    const finish = (result: 'ok' | 'timeout' | 'unavailable') => {
      clearTimeout(timer);
      connection.destroy();
      resolvePromise(result);
    };
    connection.setEncoding('utf8');
    connection.on('data', (chunk: string) => {
      received += chunk;
      if (!sent) {
        const newline = received.indexOf('\n');
        if (newline < 0) return;
        // Nothing is sent to a listener that cannot show the helper's token.
        if (!tokensMatch(received.slice(0, newline), endpoint.serverToken)) return finish('unavailable');
        received = received.slice(newline + 1);
        sent = true;
        connection.write(`${tokenLine(endpoint.clientToken, agent)}${stdin}\0`);
      }
      if (received.includes('\n')) finish(received === REPLY_OK ? 'ok' : 'unavailable');
    });
    // Refused (no helper on that port any more), or the helper went away before answering: the event is handled here.
    connection.on('error', () => finish('unavailable'));
    connection.on('close', () => finish(received === REPLY_OK ? 'ok' : 'unavailable'));
  });
}

function startHelper(storeFlags: readonly string[]): void {
  try {
    const bin = packagePath('bin', 'waypoint.js');
    spawn(process.execPath, [bin, 'hooks', 'serve', 'claude', ...storeFlags], { detached: true, stdio: 'ignore' }).unref();
  } catch {
    // Without a helper every event is handled in its own process: slower, never wrong.
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
