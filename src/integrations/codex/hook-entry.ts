// `waypoint hooks run codex [--store f | --store-file f]`, loaded without the rest of the CLI (bin/waypoint.js).
import { resolve } from 'node:path';
import { defaultStorePath } from '../../engine/store-location.js';
import { hookStoreFromFlags, type HookStore } from '../hook-store.js';

/** Handles the event on stdin in this process; always resolves to 0, so Codex goes on whatever happens here. */
export async function runCodexHookCommand(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let store: HookStore | null = null;
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const stdin = Buffer.concat(chunks).toString('utf8');
    const { runCodexHook } = await import('./hook-handler.js');
    try {
      store = hookStoreFromFlags(argv, defaultStorePath(env), env);
    } catch (error) {
      // The file keeping the store's URL cannot be read: logged beside it.
      const fileAt = argv.indexOf('--store-file');
      const { logHookFailure } = await import('../hook-log.js');
      logHookFailure(
        resolve(argv[fileAt + 1] ?? defaultStorePath(env)),
        { event: null, agentSessionId: null, code: 'HOOK_STORE_UNREADABLE', message: `Cannot read the store to record into: ${(error as Error).message}` },
        'codex',
      );
      return 0;
    }
    await runCodexHook(stdin, { storePath: store.storePath, location: store.location });
  } catch {
    // runCodexHook logs its own failures; one before it (stdin, loading) must not stop Codex either.
  }
  return 0;
}
