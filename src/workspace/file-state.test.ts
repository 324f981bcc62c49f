import { chmodSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileReadFailedError } from './file-read-failed-error.js';
import { readFileState } from './file-state.js';
import { Workspace } from './workspace.js';

function setup() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'wp-fs-')));
  return { dir, workspace: new Workspace({ roots: [{ name: 'workspace', dir, kind: 'workspace' }] }) };
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

describe('readFileState', () => {
  it('reports files with sha256, size and mode, and content only when asked', () => {
    const { dir, workspace } = setup();
    writeFileSync(join(dir, 'a.sh'), 'echo hi\n');
    chmodSync(join(dir, 'a.sh'), 0o755);
    const state = readFileState(workspace.resolve('a.sh'));
    expect(state).toMatchObject({ exists: true, kind: 'file', hash: sha256('echo hi\n'), size: 8, mode: 0o755 });
    expect('content' in state).toBe(false);
    const withContent = readFileState(workspace.resolve('a.sh'), { withContent: true });
    expect(withContent.exists && withContent.content?.toString()).toBe('echo hi\n');
  });

  it('reports missing paths, directories and symlinks (by link text, or followed when asked)', () => {
    const { dir, workspace } = setup();
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub/t.txt'), 'target');
    symlinkSync('sub/t.txt', join(dir, 'link'));
    expect(readFileState(workspace.resolve('missing'))).toEqual({ exists: false });
    expect(readFileState(workspace.resolve('missing/below'))).toEqual({ exists: false });
    expect(readFileState(workspace.resolve('sub'))).toMatchObject({ exists: true, kind: 'dir', hash: null });
    expect(readFileState(workspace.resolve('link'))).toMatchObject({ kind: 'symlink', hash: sha256('sub/t.txt'), linkTarget: 'sub/t.txt' });
    expect(readFileState(workspace.resolve('link'), { followSymlinks: true })).toMatchObject({ kind: 'file', hash: sha256('target') });
  });

  it('reads the same with the lstat taken while resolving (resolveKeyEntry), for files, links, directories and missing paths', () => {
    const { dir, workspace } = setup();
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub/t.txt'), 'target');
    chmodSync(join(dir, 'sub/t.txt'), 0o640);
    symlinkSync('sub/t.txt', join(dir, 'link'));
    symlinkSync('sub', join(dir, 'dirlink'));
    writeFileSync(join(dir, 'plain'), 'x');
    for (const key of [
      'workspace:sub/t.txt',
      'workspace:link',
      'workspace:sub',
      'workspace:dirlink',
      'workspace:dirlink/t.txt',
      'workspace:missing',
      'workspace:plain/below',
    ]) {
      const { resolved, entry } = workspace.resolveKeyEntry(key);
      expect(resolved).toEqual(workspace.resolveKey(key));
      const { mtimeMs: _a, ...once } = readFileState(resolved, { withContent: true, entry }) as { mtimeMs?: number };
      const { mtimeMs: _b, ...twice } = readFileState(resolved, { withContent: true }) as { mtimeMs?: number };
      expect(once, key).toEqual(twice);
    }
    // A link at the path still resolves to where it leads, its entry being the link itself.
    expect(workspace.resolveKeyEntry('workspace:link').resolved).toMatchObject({ realPath: join(dir, 'sub/t.txt'), entryPath: join(dir, 'link') });
    expect(workspace.resolveKeyEntry('workspace:link').entry?.isSymbolicLink()).toBe(true);
    expect(workspace.resolveKeyEntry('workspace:missing').entry).toBeNull();
  });

  it('throws FILE_READ_FAILED for something that exists but cannot be read as a file (a socket)', async () => {
    const { dir, workspace } = setup();
    const server = createServer();
    await new Promise<void>((done) => server.listen(join(dir, 'agent.sock'), done));
    try {
      expect(() => readFileState(workspace.resolve('agent.sock'))).toThrow(FileReadFailedError);
      try {
        readFileState(workspace.resolve('agent.sock'));
      } catch (error) {
        expect((error as FileReadFailedError).code).toBe('FILE_READ_FAILED');
        expect((error as FileReadFailedError).path).toBe('workspace:agent.sock');
      }
    } finally {
      await new Promise((done) => server.close(done));
    }
  });
});
