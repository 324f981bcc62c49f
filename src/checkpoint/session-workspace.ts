import { basename, dirname, relative, resolve, sep } from 'node:path';
import { InvalidArgumentError, type Session } from '../model/index.js';
import { Workspace, type WorkspaceRootSpec, type RootKind } from '../workspace/index.js';

/** Name of the root made from `session.workdir`. Checkpoint paths in it read `workspace:<path>`. */
export const PRIMARY_ROOT = 'workspace';

/**
 * The roots a session may touch: its workdir as the `workspace` root, plus the roots declared in
 * `session.metadata.roots` (`[{ name, dir, kind }]`, kind `custom` tracked; `data`, `pluginData`,
 * `logs`, `tmp` written but never checkpointed). The store's own directory is never tracked; a
 * store placed directly in a root directory is refused, since its files would be scanned as changes.
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
  const excludedDirs: string[] = [];
  for (const root of roots) {
    const fromRoot = relative(resolve(root.dir), storeDir);
    if (fromRoot === '') {
      throw new InvalidArgumentError({
        parameter: 'store',
        value: storeLocation,
        code: 'STORE_INSIDE_ROOT',
        reason: `the store file ${basename(storeLocation)} sits directly in the ${root.name} root ${root.dir}; move it into a subdirectory (e.g. .waypoint/) so its files are not scanned as changes.`,
      });
    }
    // Only a store directory inside a root needs excluding; one outside (or above) is never scanned.
    if (!fromRoot.startsWith(`..${sep}`) && fromRoot !== '..' && !fromRoot.startsWith(sep)) excludedDirs.push(storeDir);
  }
  return new Workspace({ roots, excludedDirs: [...new Set(excludedDirs)] });
}

function declaredRoots(session: Pick<Session, 'metadata'>): WorkspaceRootSpec[] {
  const declared = session.metadata.roots;
  if (declared === undefined) return [];
  if (!Array.isArray(declared)) {
    throw new InvalidArgumentError({ parameter: 'session.metadata.roots', value: declared, reason: 'expected an array of { name, dir, kind }.' });
  }
  return declared.map((root, index) => {
    if (root === null || typeof root !== 'object' || Array.isArray(root) || typeof root.name !== 'string' || typeof root.dir !== 'string' || typeof root.kind !== 'string') {
      throw new InvalidArgumentError({ parameter: `session.metadata.roots[${index}]`, value: root, reason: 'expected { name, dir, kind }.' });
    }
    return { name: root.name, dir: root.dir, kind: root.kind as RootKind };
  });
}
