import { hostId } from '../../model/index.js';
import { isProcessAlive } from './blobs/pack-file-name.js';
import type { SqliteContext } from './sqlite-context.js';

const HOST = hostId();

/**
 * Hashes pinned by writes in flight. An intent that changes no files (a plain pin) of a process on
 * this host that is gone has expired and pins nothing; with `expire` it is deleted too (inside the
 * caller's write transaction). Intents that change files, and exec captures in flight, stay roots
 * until recovery handles them.
 */
export function writeIntentRoots(context: SqliteContext, options: { expire?: boolean } = {}): Set<string> {
  const roots = new Set<string>();
  const rows = context.statement("SELECT id, pid, host, hashes, files = '[]' AND exec IS NULL AS plain FROM write_intents").all() as Array<{
    id: string;
    pid: number;
    host: string;
    hashes: string;
    plain: number;
  }>;
  for (const row of rows) {
    if (row.plain && row.host === HOST && !isProcessAlive(row.pid)) {
      if (options.expire) context.statement('DELETE FROM write_intents WHERE id = ?').run(row.id);
      continue;
    }
    for (const hash of JSON.parse(row.hashes) as string[]) roots.add(hash);
  }
  return roots;
}
