import { basename, dirname, relative, resolve, sep } from 'node:path';
import { InvalidArgumentError, type Session } from '../model/index.js';
import { Workspace, type WorkspaceRootSpec, type RootKind } from '../workspace/index.js';

/** Name of the root made from `session.workdir`. Checkpoint paths in it read `workspace:<path>`. */
export const PRIMARY_ROOT = 'workspace';

/**
 * The files the SQLite store keeps for a database at `location`: the database, its WAL, shared
 * memory and rollback journal, the directory of blob packs beside it, and the directory where
 * rewinds keep the files they replaced for reuse (`KeptFiles`).
 */
export function storeFilesOf(location: string): string[] {
  const database = resolve(location);
  return [database, `${database}-wal`, `${database}-shm`, `${database}-journal`, `${database}.blobs`, `${database}.kept`];
}

/**
 * The roots a session may touch: its workdir as the `workspace` root, plus the roots declared in
 * `session.metadata.roots` (`[{ name, dir, kind }]`, kind `custom` tracked; `data`, `pluginData`,
 * `logs`, `tmp` written but never checkpointed).
 *
 * The store is never part of the workspace: its files are protected (every tool write, edit,
 * delete, move or mkdir that reaches them, through links too, is refused with `PATH_PROTECTED`),
 * and when its directory lies inside a root that whole directory is protected and never scanned.
 * A store placed directly in a root directory, or a root inside the store's files, is refused
 * (`STORE_INSIDE_ROOT`): its files could not be told apart from the workspace's.
 */
export function sessionWorkspace(session: Pick<Session, 'id' | 'workdir' | 'metadata'>, storeLocation: string): Workspace {
  if (session.workdir === null) {
    throw new InvalidArgumentError({
      parameter: 'session.workdir',
      value: null,
      code: 'SESSION_HAS_NO_WORKDIR',
      reason: `session ${session.id} has no working directory, so it has no files to checkpoint; create it with a workdir.`,
    });
  }
  const roots: WorkspaceRootSpec[] = [{ name: PRIMARY_ROOT, dir: session.workdir, kind: 'workspace' }, ...declaredRoots(session)];
  const storeDir = dirname(resolve(storeLocation));
  const storeFiles = storeFilesOf(storeLocation);
  const excludedDirs: string[] = [];
  for (const root of roots) {
    const rootDir = resolve(root.dir);
    const fromRoot = relative(rootDir, storeDir);
    if (fromRoot === '') {
      throw new InvalidArgumentError({
        parameter: 'store',
        value: storeLocation,
        code: 'STORE_INSIDE_ROOT',
        reason:
          `the store file ${basename(storeLocation)} sits directly in the ${root.name} root ${root.dir}, where its files cannot be told apart from the workspace's; ` +
          `open a store outside the workspace instead (the default ~/.waypoint/waypoint.db, WAYPOINT_HOME, or --store <path outside ${root.dir}>).`,
      });
    }
    const insideStore = storeFiles.find((file) => rootDir === file || rootDir.startsWith(`${file}${sep}`));
    if (insideStore !== undefined) {
      throw new InvalidArgumentError({
        parameter: 'session.workdir',
        value: root.dir,
        code: 'STORE_INSIDE_ROOT',
        reason: `the ${root.name} root ${root.dir} lies inside the store's own files (${insideStore}); use a workspace directory outside the store.`,
      });
    }
    // Only a store directory inside a root needs excluding; one outside (or above) is never scanned.
    if (!fromRoot.startsWith(`..${sep}`) && fromRoot !== '..' && !fromRoot.startsWith(sep)) excludedDirs.push(storeDir);
  }
  const unique = [...new Set(excludedDirs)];
  return new Workspace({ roots, excludedDirs: unique, protectedPaths: [...unique, ...storeFiles] });
}

function declaredRoots(session: Pick<Session, 'metadata'>): WorkspaceRootSpec[] {
  const declared = session.metadata.roots;
  if (declared === undefined) return [];
  if (!Array.isArray(declared)) {
    throw new InvalidArgumentError({ parameter: 'session.metadata.roots', value: declared, reason: 'expected an array of { name, dir, kind }.' });
  }
  return declared.map((root, index) => {
    if (
      root === null ||
      typeof root !== 'object' ||
      Array.isArray(root) ||
      typeof root.name !== 'string' ||
      typeof root.dir !== 'string' ||
      typeof root.kind !== 'string'
    ) {
      throw new InvalidArgumentError({ parameter: `session.metadata.roots[${index}]`, value: root, reason: 'expected { name, dir, kind }.' });
    }
    return { name: root.name, dir: root.dir, kind: root.kind as RootKind };
  });
}
