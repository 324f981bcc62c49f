import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WaypointError } from '../model/index.js';
import { sessionWorkspace } from './session-workspace.js';

describe('sessionWorkspace', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-sw-'));
    mkdirSync(join(dir, 'project', '.waypoint'), { recursive: true });
    mkdirSync(join(dir, 'logs'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const session = (metadata = {}) => ({ id: 'ses_x', workdir: join(dir, 'project'), metadata });

  it('makes the workdir the tracked workspace root and adds declared roots with their kinds', () => {
    const workspace = sessionWorkspace(session({ roots: [{ name: 'logs', dir: join(dir, 'logs'), kind: 'logs' }] }), join(dir, 'store', 'w.db'));
    expect(workspace.trackedRoots().map((root) => root.name)).toEqual(['workspace']);
    expect(workspace.roots.map((root) => root.name)).toEqual(['workspace', 'logs']);
    expect(workspace.exclusions.dirs).toEqual([]);
  });

  it('protects a store kept inside the workspace: its directory is never tracked and never resolves', () => {
    const workspace = sessionWorkspace(session(), join(dir, 'project', '.waypoint', 'w.db'));
    for (const path of ['.waypoint/w.db', '.waypoint/w.db-wal', '.waypoint/w.db.blobs/pack-1.pack', '.waypoint', 'src/../.waypoint/new']) {
      expect(() => workspace.resolve(path), path).toThrow(expect.objectContaining({ code: 'PATH_PROTECTED' }));
    }
    expect(workspace.exclusions.dirs).toEqual([join(dir, 'project', '.waypoint')]);
    expect(workspace.protectedPathsInRoots()).toContain(join(dir, 'project', '.waypoint'));
    expect(workspace.resolve('src/a.ts').tracked).toBe(true);
    expect(workspace.resolve('.').containsProtected).toBe(join(dir, 'project', '.waypoint'));
  });

  it('refuses a root inside the store files', () => {
    const storeDir = join(dir, 'store');
    mkdirSync(join(storeDir, 'w.db.blobs'), { recursive: true });
    expect(() => sessionWorkspace({ id: 'ses_x', workdir: join(storeDir, 'w.db.blobs'), metadata: {} }, join(storeDir, 'w.db'))).toThrow(
      expect.objectContaining({ code: 'STORE_INSIDE_ROOT' }),
    );
  });

  it('refuses a store directly in a root, a session without workdir, and malformed roots', () => {
    const codes = [
      () => sessionWorkspace(session(), join(dir, 'project', 'w.db')),
      () => sessionWorkspace({ id: 'ses_x', workdir: null, metadata: {} }, join(dir, 'w.db')),
      () => sessionWorkspace(session({ roots: [{ name: 'x' }] }), join(dir, 'store', 'w.db')),
    ].map((fn) => {
      try {
        fn();
        return 'no error';
      } catch (error) {
        return (error as WaypointError).code;
      }
    });
    expect(codes).toEqual(['STORE_INSIDE_ROOT', 'SESSION_HAS_NO_WORKDIR', 'INVALID_ARGUMENT']);
  });
});
