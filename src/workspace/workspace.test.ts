import { mkdirSync, mkdtempSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WaypointError } from '../model/errors/index.js';
import { writeFileAtomic } from './atomic-write.js';
import { readFileState } from './file-state.js';
import { PathOutsideWorkspaceError } from './path-outside-workspace-error.js';
import { Workspace } from './workspace.js';

function setup() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'wp-ws-')));
  const project = join(base, 'project');
  const outside = join(base, 'outside');
  const logs = join(base, 'logs');
  mkdirSync(project);
  mkdirSync(outside);
  mkdirSync(logs);
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  const workspace = new Workspace({
    roots: [
      { name: 'workspace', dir: project, kind: 'workspace' },
      { name: 'logs', dir: logs, kind: 'logs' },
    ],
    excludedDirs: [join(project, '.waypoint')],
  });
  return { base, project, outside, logs, workspace };
}

function refusal(action: () => unknown): PathOutsideWorkspaceError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(PathOutsideWorkspaceError);
    return error as PathOutsideWorkspaceError;
  }
  throw new Error('expected a refusal');
}

describe('Workspace.resolve', () => {
  it('resolves relative paths in the primary root and absolute paths in the root containing them', () => {
    const { project, logs, workspace } = setup();
    const a = workspace.resolve('src/../src/a.ts');
    expect(a.relativePath).toBe('src/a.ts');
    expect(a.key).toBe('workspace:src/a.ts');
    expect(a.realPath).toBe(join(project, 'src/a.ts'));
    expect(a.tracked).toBe(true);
    const log = workspace.resolve(join(logs, 'run.log'));
    expect(log.root.name).toBe('logs');
    expect(log.tracked).toBe(false);
    expect(workspace.resolveKey('logs:run.log').realPath).toBe(join(logs, 'run.log'));
  });

  it('marks excluded directories (.git, the store directory) as not tracked', () => {
    const { workspace } = setup();
    expect(workspace.resolve('.git/config').tracked).toBe(false);
    expect(workspace.resolve('.waypoint/store.db').tracked).toBe(false);
    expect(workspace.resolve('sub/.git/HEAD').tracked).toBe(false);
  });

  it('refuses ".." escapes, absolute paths outside every root and NUL bytes, writing nothing', () => {
    const { base, outside, workspace } = setup();
    const before = readdirSync(base).sort();
    const parent = refusal(() => writeFileAtomic(workspace.resolve('../outside/new.txt'), 'x'));
    expect(parent.reason).toBe('parent_escape');
    expect(parent.root).toBe('workspace');
    expect(parent.code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(parent.exitCode).toBe(2);
    expect(parent.httpStatus).toBe(400);
    expect(WaypointError.is(parent, 'PATH_OUTSIDE_WORKSPACE')).toBe(true);
    expect(refusal(() => workspace.resolve('a/../../x')).reason).toBe('parent_escape');
    expect(refusal(() => workspace.resolve(join(outside, 'new.txt'))).reason).toBe('absolute_outside');
    expect(refusal(() => workspace.resolve(join(outside, 'new.txt'), { root: 'workspace' })).reason).toBe('absolute_outside');
    expect(refusal(() => workspace.resolveKey(`workspace:${join(outside, 'x')}`)).reason).toBe('absolute_outside');
    const nul = refusal(() => workspace.resolve('a\0b'));
    expect(nul.reason).toBe('nul_byte');
    expect(nul.message).toContain('a\\0b');
    expect(readdirSync(base).sort()).toEqual(before);
    expect(readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('refuses a symlinked file that points outside, before reading or writing it', () => {
    const { project, outside, workspace } = setup();
    symlinkSync(join(outside, 'secret.txt'), join(project, 'leak.txt'));
    expect(refusal(() => readFileState(workspace.resolve('leak.txt'), { withContent: true })).reason).toBe('symlink_escape');
    expect(refusal(() => writeFileAtomic(workspace.resolve('leak.txt'), 'overwritten')).reason).toBe('symlink_escape');
    expect(readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('refuses paths through a symlinked directory that points outside, even to files that do not exist yet', () => {
    const { project, outside, workspace } = setup();
    symlinkSync(outside, join(project, 'linked'));
    expect(refusal(() => workspace.resolve('linked/secret.txt')).reason).toBe('symlink_escape');
    expect(refusal(() => writeFileAtomic(workspace.resolve('linked/deeper/new.txt'), 'x')).reason).toBe('symlink_escape');
    expect(refusal(() => workspace.resolve('linked')).reason).toBe('symlink_escape');
    expect(readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('refuses dangling symlinks that point outside and symlink cycles', () => {
    const { project, outside, workspace } = setup();
    symlinkSync(join(outside, 'not-yet.txt'), join(project, 'dangling'));
    expect(refusal(() => writeFileAtomic(workspace.resolve('dangling'), 'x')).reason).toBe('symlink_escape');
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    symlinkSync(join(project, 'loop-b'), join(project, 'loop-a'));
    symlinkSync(join(project, 'loop-a'), join(project, 'loop-b'));
    expect(refusal(() => workspace.resolve('loop-a/x')).reason).toBe('symlink_loop');
  });

  it('refuses a symlink inside the root reached through a directory link that leaves the root', () => {
    const { project, outside, workspace } = setup();
    symlinkSync(join(project, 'target.txt'), join(outside, 'back-in'));
    symlinkSync(outside, join(project, 'out'));
    // The entry itself (out/back-in) lives outside, so deleting or renaming it would touch the outside.
    expect(refusal(() => workspace.resolve('out/back-in')).reason).toBe('symlink_escape');
  });

  it('allows symlinks that stay inside the root and reports where they lead', () => {
    const { project, workspace } = setup();
    mkdirSync(join(project, 'real'));
    symlinkSync('real', join(project, 'alias'));
    const resolved = workspace.resolve('alias/file.txt');
    expect(resolved.realPath).toBe(join(project, 'real/file.txt'));
    expect(resolved.relativePath).toBe('alias/file.txt');
  });

  it('rejects bad root declarations and unknown roots with typed errors', () => {
    const { project, workspace } = setup();
    expect(() => new Workspace({ roots: [] })).toThrow(/at least one root/);
    expect(() => new Workspace({ roots: [{ name: 'a:b', dir: project, kind: 'workspace' }] })).toThrow(/Invalid root.name/);
    expect(() => new Workspace({ roots: [{ name: 'a', dir: 'relative', kind: 'workspace' }] })).toThrow(/absolute/);
    expect(() => new Workspace({ roots: [{ name: 'a', dir: project, kind: 'nope' as never }] })).toThrow(/root.kind/);
    try {
      workspace.resolve('x', { root: 'nope' });
      throw new Error('unreachable');
    } catch (error) {
      expect(WaypointError.is(error, 'WORKSPACE_ROOT_UNKNOWN')).toBe(true);
    }
    expect(workspace.trackedRoots().map((root) => root.name)).toEqual(['workspace']);
  });
});
