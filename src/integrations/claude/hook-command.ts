import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packagePath } from '../../model/package-root.js';

/** POSIX shell quoting: one single-quoted word. */
function quote(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Where the bash client's shell is looked for: an absolute path, so Claude's `PATH` does not matter. */
export const BASH = '/bin/bash';

/**
 * The command Claude Code (through `/bin/sh -c`) or Codex CLI (through `/bin/bash -c`) runs for
 * each hooked event: `/bin/bash` with this package's `bin/claude-hook.bash` (which hands the event
 * to the store's resident helper over loopback TCP with bash builtins alone, so one process starts
 * and no Node), followed by the Node client it falls back to — this Node and `bin/waypoint.js` by
 * absolute path (so it works from any directory and whatever `PATH` the agent has), `hooks run
 * claude|codex` (`agent`, default claude), and the store when one was named at install
 * (`storeFlags`: a database store by the file its URL is kept in). Without `/bin/bash`, or with
 * `shell: false`, the Node client alone.
 */
export function hookCommand(
  options: { agent?: 'claude' | 'codex'; storePath?: string; storeFlags?: readonly string[]; node?: string; bin?: string; shell?: boolean } = {},
): string {
  const node = options.node ?? process.execPath;
  const bin = options.bin ?? realpathSync(packagePath('bin', 'waypoint.js'));
  const storeFlags = options.storeFlags ?? (options.storePath ? ['--store', options.storePath] : []);
  const client = [node, bin, 'hooks', 'run', options.agent ?? 'claude', ...storeFlags];
  const shellClient = join(dirname(bin), 'claude-hook.bash');
  const words = options.shell === false || !existsSync(shellClient) || !existsSync(BASH) ? client : [BASH, shellClient, ...client];
  return words.map(quote).join(' ');
}
