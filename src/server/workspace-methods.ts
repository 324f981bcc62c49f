import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { sessionWorkspace } from '../checkpoint/index.js';
import { method, type Method } from './rpc.js';
import type { ServerContext } from './server-context.js';
import { ServerRequestError } from './server-errors.js';

const MAX_ENTRIES = 1000;

/** One name in a listed directory; a symbolic link is listed as a link, never followed. */
export interface DirectoryEntry {
  name: string;
  kind: 'file' | 'directory' | 'link' | 'other';
  size: number;
}

/** Browsing a session's workspace (a fork's own directory included), confined like `workspace.read`. */
export const workspaceMethods: Record<string, Method<ServerContext>> = {
  'workspace.list': method(
    z.object({ sessionId: z.string().trim().min(1).max(200), path: z.string().max(4096).default('') }).strict(),
    async (context, params) => {
      const session = await context.waypoint.store.getSession(params.sessionId);
      const workspace = sessionWorkspace(session, context.waypoint.store.location);
      const key = /^[A-Za-z0-9_-]+:/.test(params.path) ? params.path : null;
      const resolved = key ? workspace.resolveKey(key as `${string}:${string}`) : workspace.resolve(params.path === '' ? '.' : params.path);
      let names: string[];
      try {
        if (!lstatSync(resolved.realPath).isDirectory()) throw new Error('not a directory');
        names = readdirSync(resolved.realPath);
      } catch {
        throw new ServerRequestError('NOT_A_DIRECTORY', `${params.path || '.'} is not a directory of the session's workspace.`, { path: params.path }, 404);
      }
      const entries: DirectoryEntry[] = names
        .sort((a, b) => a.localeCompare(b))
        .slice(0, MAX_ENTRIES)
        .map((name) => {
          try {
            const stats = lstatSync(join(resolved.realPath, name));
            const kind = stats.isSymbolicLink() ? 'link' : stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : 'other';
            return { name, kind, size: stats.isFile() ? stats.size : 0 };
          } catch {
            return { name, kind: 'other' as const, size: 0 };
          }
        });
      return { sessionId: session.id, workdir: session.workdir, path: resolved.relativePath, entries, truncated: names.length > MAX_ENTRIES };
    },
  ),
};
