import { resolve } from 'node:path';
import { defaultStorePath } from '../../engine/index.js';
import { runClaudeHook } from './hook-handler.js';

/**
 * `waypoint hooks run claude [--store <file>]` without loading the rest of the CLI: Claude Code
 * runs it for every hooked event, synchronously, so its start-up time is the agent's wait. Always
 * resolves to exit code 0 (see `runClaudeHook`); an unknown agent or flag is logged like any
 * other failure.
 */
export async function runHookProcess(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const storeAt = argv.indexOf('--store');
  const storePath = storeAt >= 0 && argv[storeAt + 1] ? resolve(argv[storeAt + 1]!) : defaultStorePath(env);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const stdin = Buffer.concat(chunks).toString('utf8');
  await runClaudeHook(argv[0] === 'claude' ? stdin : '', { storePath });
  return 0;
}
