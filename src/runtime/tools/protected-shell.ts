import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WaypointError } from '../../model/index.js';

/** A program and its arguments that run one shell command. */
export interface ShellInvocation {
  file: string;
  args: string[];
  /** The store paths the command sees read-only (empty: nothing needed protecting). */
  protectedPaths: readonly string[];
}

/**
 * The session's store lies inside its workspace and this machine cannot run a shell command with
 * the store read-only, so the command is refused rather than given the power to destroy every
 * session (`rm -rf .waypoint`, `echo x > .waypoint/waypoint.db`, `mv .waypoint x`). Nothing ran.
 */
export class StoreNotProtectedError extends WaypointError {
  override readonly name = 'StoreNotProtectedError';
  declare readonly code: 'STORE_NOT_PROTECTED';

  constructor(options: { protectedPaths: readonly string[]; reason: string }) {
    super({
      code: 'STORE_NOT_PROTECTED',
      message:
        `Refused to run the command: Waypoint's store (${options.protectedPaths.join(', ')}) lies inside the workspace, and ${options.reason}, ` +
        'so the command could delete or overwrite every session. Nothing was run. Open a store outside the workspace (WAYPOINT_HOME, or --store <path>) to use shell commands here.',
      details: { protectedPaths: [...options.protectedPaths], reason: options.reason },
      exitCode: 2,
      httpStatus: 409,
    });
  }
}

type ProtectionMode = 'root' | 'user-namespace';

// Probed once per process (and per `unshare` program): can a command run with a path read-only?
const probes = new Map<string, { mode: ProtectionMode } | { mode: null; reason: string }>();

/** The `unshare` program (util-linux); `WAYPOINT_UNSHARE` names another. */
function unshareProgram(): string {
  const configured = process.env.WAYPOINT_UNSHARE;
  return configured !== undefined && configured.trim() !== '' ? configured : 'unshare';
}

/**
 * How to run `command` with `protectedPaths` read-only for it and everything it starts: in a
 * private mount namespace (Linux `unshare`) where each path is bind-mounted onto itself read-only,
 * so unlinking, renaming, truncating or writing into it fails with `EROFS` / `EBUSY` for the
 * command, while Waypoint and every other process keep writing the store as usual. As root the
 * namespace is made directly; otherwise in a user namespace, then the command runs as the same
 * user again. Without protected paths it is plain `bash -c`. Throws {@link StoreNotProtectedError}
 * when there are paths to protect and this machine cannot.
 *
 * @example
 * const { file, args } = shellInvocation('rm -rf .waypoint', ['/home/me/.waypoint'])
 * spawn(file, args, { cwd: '/home/me' }) // rm fails: "Read-only file system"; the store is intact
 */
export function shellInvocation(command: string, protectedPaths: readonly string[]): ShellInvocation {
  const paths = outermost(protectedPaths.filter((path) => existsSync(path)));
  if (paths.length === 0) return { file: 'bash', args: ['-c', command], protectedPaths: [] };
  const program = unshareProgram();
  const probe = probes.get(program) ?? probeProtection(program);
  if (probe.mode === null) throw new StoreNotProtectedError({ protectedPaths: paths, reason: probe.reason });
  return { ...namespaced(program, probe.mode, command, paths), protectedPaths: paths };
}

const MOUNT_SCRIPT =
  'command=$1; shift; for path do mount -o bind,ro "$path" "$path" || ' +
  '{ echo "waypoint: could not make $path read-only; the command was not run" >&2; exit 125; }; done; ';

function namespaced(program: string, mode: ProtectionMode, command: string, paths: readonly string[]): { file: string; args: string[] } {
  if (mode === 'root') {
    return { file: program, args: ['-m', '--propagation', 'private', 'sh', '-c', `${MOUNT_SCRIPT}exec bash -c "$command"`, 'sh', command, ...paths] };
  }
  // Mounting needs root inside a user namespace; a second one maps the person's ids back, so the
  // command runs as them (files it creates are theirs, `id` says who they are).
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const back = `exec "${program.replace(/["\\$`]/g, '\\$&')}" -U --map-user=${uid} --map-group=${gid} bash -c "$command"`;
  return { file: program, args: ['-U', '-r', '-m', '--propagation', 'private', 'sh', '-c', `${MOUNT_SCRIPT}${back}`, 'sh', command, ...paths] };
}

/** Tries each way on a scratch directory: protected only when a write into it really fails. */
function probeProtection(program: string): { mode: ProtectionMode } | { mode: null; reason: string } {
  const modes: ProtectionMode[] = process.getuid?.() === 0 ? ['root', 'user-namespace'] : ['user-namespace'];
  const scratch = mkdtempSync(join(tmpdir(), 'waypoint-shell-probe-'));
  let result: { mode: ProtectionMode } | { mode: null; reason: string } = {
    mode: null,
    reason:
      process.platform === 'linux'
        ? `"${program}" could not make a directory read-only for a command (no mount namespaces here)`
        : `read-only mounts for one command need Linux (this is ${process.platform})`,
  };
  try {
    if (process.platform === 'linux') {
      for (const mode of modes) {
        const { file, args } = namespaced(program, mode, `! touch "${join(scratch, 'probe')}" 2>/dev/null`, [scratch]);
        const run = spawnSync(file, args, { stdio: 'ignore', timeout: 10_000 });
        if (run.status === 0 && !existsSync(join(scratch, 'probe'))) {
          result = { mode };
          break;
        }
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  probes.set(program, result);
  return result;
}

/** Drops paths that lie inside another one of the list (its mount already covers them). */
function outermost(paths: readonly string[]): string[] {
  const unique = [...new Set(paths)].sort();
  return unique.filter((path) => !unique.some((other) => other !== path && path.startsWith(`${other}/`)));
}
