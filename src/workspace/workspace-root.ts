import { isAbsolute, resolve } from 'node:path';
import { InvalidArgumentError, NameTooLongError } from '../model/errors/index.js';
import { realPathOf } from './real-path.js';

/**
 * What a root is for. `workspace` and `custom` roots are tracked (checkpointed, scanned);
 * `data`, `pluginData`, `logs` and `tmp` roots may be written but are never checkpointed: they are
 * shared write areas or scratch space whose changes cannot be attributed to one session.
 */
export type RootKind = 'workspace' | 'custom' | 'data' | 'pluginData' | 'logs' | 'tmp';

export const ROOT_KINDS: readonly RootKind[] = ['workspace', 'custom', 'data', 'pluginData', 'logs', 'tmp'];

/** How a caller declares a root. */
export interface WorkspaceRootSpec {
  /** Short name used in workspace paths (`workspace:src/a.ts`): letters, digits, `_`, `.`, `-`. */
  name: string;
  /** Absolute directory. */
  dir: string;
  kind: RootKind;
}

/** A declared root with its directory resolved. */
export interface WorkspaceRoot {
  readonly name: string;
  /** The directory as declared (absolute, normalized). */
  readonly dir: string;
  /** `dir` with symbolic links resolved; confinement is checked against this. */
  readonly realDir: string;
  readonly kind: RootKind;
  /** Whether changes under this root are checkpointed. */
  readonly tracked: boolean;
}

const ROOT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Whether roots of this kind are checkpointed. */
export function isTrackedKind(kind: RootKind): boolean {
  return kind === 'workspace' || kind === 'custom';
}

/** Validates a root declaration and resolves its real directory (which need not exist yet). */
export function createWorkspaceRoot(spec: WorkspaceRootSpec): WorkspaceRoot {
  if (!ROOT_NAME.test(spec.name)) {
    throw new InvalidArgumentError({
      parameter: 'root.name',
      value: spec.name,
      reason: 'use letters, digits, "_", "." or "-" (no ":" or "/"), starting with a letter or digit',
    });
  }
  if (!ROOT_KINDS.includes(spec.kind)) {
    throw new InvalidArgumentError({ parameter: 'root.kind', value: spec.kind, reason: `must be one of ${ROOT_KINDS.join(', ')}` });
  }
  if (typeof spec.dir !== 'string' || !isAbsolute(spec.dir) || spec.dir.includes('\0')) {
    throw new InvalidArgumentError({ parameter: 'root.dir', value: spec.dir, reason: 'must be an absolute directory path' });
  }
  const dir = resolve(spec.dir);
  const tooLong = NameTooLongError.check(dir);
  if (tooLong) throw tooLong;
  return Object.freeze({ name: spec.name, dir, realDir: realPathOf(dir), kind: spec.kind, tracked: isTrackedKind(spec.kind) });
}
