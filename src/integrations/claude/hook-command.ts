import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** POSIX shell quoting: one single-quoted word. */
function quote(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command Claude Code runs for each hooked event: this Node and this package's
 * `bin/waypoint.js` by absolute path (so it works from any directory and whatever `PATH` Claude
 * has), `hooks run claude`, and the store when one was named at install.
 */
export function hookCommand(options: { storePath?: string; node?: string; bin?: string } = {}): string {
  const node = options.node ?? process.execPath;
  const bin = options.bin ?? realpathSync(fileURLToPath(new URL('../../../bin/waypoint.js', import.meta.url)));
  return [node, bin, 'hooks', 'run', 'claude', ...(options.storePath ? ['--store', options.storePath] : [])].map(quote).join(' ');
}
