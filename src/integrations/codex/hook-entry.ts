// `waypoint hooks run codex [--store f]`, loaded without the rest of the CLI (bin/waypoint.js).
import { resolve } from 'node:path';
import { defaultStorePath } from '../../engine/store-location.js';

/** Handles the event on stdin in this process; always resolves to 0, so Codex goes on whatever happens here. */
export async function runCodexHookCommand(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const storeAt = argv.indexOf('--store');
  const storePath = storeAt >= 0 && argv[storeAt + 1] ? resolve(argv[storeAt + 1]!) : defaultStorePath(env);
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const { runCodexHook } = await import('./hook-handler.js');
    await runCodexHook(Buffer.concat(chunks).toString('utf8'), { storePath });
  } catch {
    // runCodexHook logs its own failures; one before it (stdin, loading) must not stop Codex either.
  }
  return 0;
}
