import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fsyncDirectories, prepareFileWrite, prepareFileWriteInPool, writeFileAtomic } from './atomic-write.js';
import { deletePath } from './delete-path.js';
import { FileWriteFailedError } from './file-write-failed-error.js';
import { movePath } from './move-path.js';
import { Workspace } from './workspace.js';

function setup() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'wp-aw-')));
  return { dir, workspace: new Workspace({ roots: [{ name: 'workspace', dir, kind: 'workspace' }] }) };
}

const mode = (path: string) => statSync(path).mode & 0o7777;

describe('writeFileAtomic', () => {
  it('writes binary content exactly, including every byte value and empty files', () => {
    const { dir, workspace } = setup();
    const bytes = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, index) => index)), randomBytes(100_000)]);
    const result = writeFileAtomic(workspace.resolve('bin/data.bin'), bytes);
    expect(readFileSync(join(dir, 'bin/data.bin')).equals(bytes)).toBe(true);
    expect(result.size).toBe(bytes.length);
    writeFileAtomic(workspace.resolve('empty'), Buffer.alloc(0));
    expect(statSync(join(dir, 'empty')).size).toBe(0);
    writeFileAtomic(workspace.resolve('text.txt'), 'héllo\r\n');
    expect(readFileSync(join(dir, 'text.txt'), 'utf8')).toBe('héllo\r\n');
  });

  it("keeps the existing file's mode, applies a given mode exactly, and leaves no temp files", () => {
    const { dir, workspace } = setup();
    const script = join(dir, 'run.sh');
    writeFileSync(script, 'old');
    chmodSync(script, 0o751);
    const inodeBefore = statSync(script).ino;
    const result = writeFileAtomic(workspace.resolve('run.sh'), 'new');
    expect(mode(script)).toBe(0o751);
    expect(result.mode).toBe(0o751);
    expect(statSync(script).ino).not.toBe(inodeBefore); // replaced by rename, not rewritten in place
    writeFileAtomic(workspace.resolve('private'), 'x', { mode: 0o600 });
    expect(mode(join(dir, 'private'))).toBe(0o600);
    writeFileAtomic(workspace.resolve('setgid'), 'x', { mode: 0o2775 });
    expect(mode(join(dir, 'setgid'))).toBe(0o2775);
    expect(readdirSync(dir).sort()).toEqual(['private', 'run.sh', 'setgid']);
  });

  // Running as root (as these tests do here) is the case where an owner is carried over: a chown
  // after the chmod would clear the setuid and setgid bits again.
  it.runIf(process.getuid?.() === 0)('as root, keeps the owner and the setuid/setgid bits of a file it replaces', () => {
    const { dir, workspace } = setup();
    const tool = join(dir, 'tool');
    writeFileSync(tool, 'v1');
    chownSync(tool, 1234, 2345);
    chmodSync(tool, 0o6755);
    writeFileAtomic(workspace.resolve('tool'), 'v2');
    expect(statSync(tool)).toMatchObject({ uid: 1234, gid: 2345 });
    expect(mode(tool)).toBe(0o6755);
    writeFileAtomic(workspace.resolve('tool'), 'v3', { mode: 0o4755 });
    expect(mode(tool)).toBe(0o4755);
    expect(readFileSync(tool, 'utf8')).toBe('v3');
  });

  it('writes through a symlink inside the root, keeping the link', () => {
    const { dir, workspace } = setup();
    writeFileSync(join(dir, 'real.txt'), 'old');
    symlinkSync('real.txt', join(dir, 'alias.txt'));
    writeFileAtomic(workspace.resolve('alias.txt'), 'new');
    expect(lstatSync(join(dir, 'alias.txt')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'real.txt'), 'utf8')).toBe('new');
  });

  it('fails with FILE_WRITE_FAILED and no temp file when the parent is a file', () => {
    const { dir, workspace } = setup();
    writeFileSync(join(dir, 'plain'), 'x');
    const attempt = () => writeFileAtomic(workspace.resolve('plain/child.txt'), 'x');
    expect(attempt).toThrow(FileWriteFailedError);
    try {
      attempt();
    } catch (error) {
      expect((error as FileWriteFailedError).code).toBe('FILE_WRITE_FAILED');
      expect((error as FileWriteFailedError).reason).toMatch(/^(ENOTDIR|EEXIST)$/);
    }
    expect(readdirSync(dir)).toEqual(['plain']);
    expect(readFileSync(join(dir, 'plain'), 'utf8')).toBe('x');
  });

  it('removes its temp file when the final rename fails (target is a non-empty directory)', () => {
    const { dir, workspace } = setup();
    mkdirSync(join(dir, 'taken'));
    writeFileSync(join(dir, 'taken/inside'), 'keep');
    expect(() => writeFileAtomic(workspace.resolve('taken'), 'x')).toThrow(FileWriteFailedError);
    expect(readdirSync(dir)).toEqual(['taken']);
    expect(readdirSync(join(dir, 'taken'))).toEqual(['inside']);
  });

  it("takes a lexical target's entry from the caller's resolution made just before, and still writes nothing through a link along its directory", () => {
    const { dir, workspace } = setup();
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/run.sh'), 'old\n', { mode: 0o750 });
    const { resolved, entry } = workspace.resolveKeyEntry('workspace:src/run.sh', { followLink: false });
    // The mode comes from the entry resolved a moment ago: no second lstat is taken.
    const write = prepareFileWrite(resolved, 'new\n', { createParents: false, resolvedEntry: entry });
    expect(write.mode).toBe(0o750);
    write.commit();
    expect(readFileSync(join(dir, 'src/run.sh'), 'utf8')).toBe('new\n');
    expect(mode(join(dir, 'src/run.sh'))).toBe(0o750);
    // A directory along the path that is a link: the resolution says so, and the write checks it again.
    mkdirSync(join(dir, 'elsewhere'));
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'linked'));
    const below = workspace.resolveKeyEntry('workspace:linked/f.txt', { followLink: false });
    expect(below.resolved.linkInPath).toBe('linked');
    expect(() => prepareFileWrite(below.resolved, 'x', { createParents: false, resolvedEntry: below.entry })).toThrow(FileWriteFailedError);
    expect(readdirSync(join(dir, 'elsewhere'))).toEqual([]);
  });

  it('refuses to write the root itself or an invalid mode', () => {
    const { workspace } = setup();
    expect(() => writeFileAtomic(workspace.resolve(''), 'x')).toThrow(/root directory itself/);
    expect(() => writeFileAtomic(workspace.resolve('a'), 'x', { mode: 0o10000 })).toThrow(/Invalid mode/);
  });
});

describe('prepareFileWrite', () => {
  const temps = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.wp-tmp'));

  it('leaves the target untouched until commit; sync in the pool, then commit renames it into place', async () => {
    const { dir, workspace } = setup();
    writeFileSync(join(dir, 'a.txt'), 'old');
    chmodSync(join(dir, 'a.txt'), 0o640);
    const write = prepareFileWrite(workspace.resolve('a.txt'), 'new content');
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('old');
    expect(temps(dir)).toHaveLength(1);
    expect(write).toMatchObject({ size: 11, mode: 0o640, directory: dir });
    const synced = write.sync();
    expect(write.sync()).toBe(synced); // started once
    await synced;
    expect(write.commit({ syncDirectory: false })).toEqual({ size: 11, mode: 0o640 });
    await fsyncDirectories([write.directory, write.directory]);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('new content');
    expect(mode(join(dir, 'a.txt'))).toBe(0o640);
    expect(temps(dir)).toEqual([]);
    write.abort(); // after commit: harmless
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('new content');
    expect(() => write.commit()).toThrow(/already committed/);
  });

  it('commit without a finished sync syncs first, even while the pool fsync still runs', async () => {
    const { dir, workspace } = setup();
    const write = prepareFileWrite(workspace.resolve('b.txt'), 'bytes');
    const synced = write.sync();
    write.commit();
    await synced;
    expect(readFileSync(join(dir, 'b.txt'), 'utf8')).toBe('bytes');
    expect(temps(dir)).toEqual([]);
  });

  it('abort removes the temp file (also while its fsync runs) and never touches the target', async () => {
    const { dir, workspace } = setup();
    writeFileSync(join(dir, 'c.txt'), 'keep');
    const write = prepareFileWrite(workspace.resolve('c.txt'), 'discard');
    const synced = write.sync();
    write.abort();
    expect(temps(dir)).toEqual([]);
    await synced;
    expect(readFileSync(join(dir, 'c.txt'), 'utf8')).toBe('keep');
    expect(() => write.commit()).toThrow(/already aborted/);
    const untouched = prepareFileWrite(workspace.resolve('d/e.txt'), 'x');
    untouched.abort();
    expect(existsSync(join(dir, 'd/e.txt'))).toBe(false);
    expect(readdirSync(join(dir, 'd'))).toEqual([]);
  });

  it('fails with FILE_WRITE_FAILED, leaving nothing behind, when the temp file cannot be written', () => {
    const { dir, workspace } = setup();
    writeFileSync(join(dir, 'plain'), 'x');
    expect(() => prepareFileWrite(workspace.resolve('plain/child.txt'), 'x')).toThrow(FileWriteFailedError);
    expect(readdirSync(dir)).toEqual(['plain']);
  });
});

describe('prepareFileWriteInPool', () => {
  const temps = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.wp-tmp'));

  it("writes many temp files at once in the pool, each with the mode asked or the file's own, the targets untouched until commit", async () => {
    const { dir, workspace } = setup();
    writeFileSync(join(dir, 'kept.txt'), 'old');
    chmodSync(join(dir, 'kept.txt'), 0o640);
    const large = randomBytes(3 * 1024 * 1024);
    const [kept, script, big] = await Promise.all([
      prepareFileWriteInPool(workspace.resolve('kept.txt'), 'new'),
      prepareFileWriteInPool(workspace.resolve('run.sh'), '#!/bin/sh\n', { mode: 0o755 }),
      prepareFileWriteInPool(workspace.resolve('big.bin'), large),
    ]);
    expect(temps(dir)).toHaveLength(3);
    expect(readFileSync(join(dir, 'kept.txt'), 'utf8')).toBe('old');
    expect(existsSync(join(dir, 'run.sh'))).toBe(false);
    expect(kept).toMatchObject({ size: 3, mode: 0o640, directory: dir });
    expect(script!.mode).toBe(0o755);
    await Promise.all([kept, script, big].map((write) => write!.sync()));
    kept!.commit();
    script!.commit({ syncDirectory: false });
    big!.commit();
    expect(readFileSync(join(dir, 'kept.txt'), 'utf8')).toBe('new');
    expect(mode(join(dir, 'kept.txt'))).toBe(0o640);
    expect(mode(join(dir, 'run.sh'))).toBe(0o755);
    expect(readFileSync(join(dir, 'big.bin')).equals(large)).toBe(true);
    expect(temps(dir)).toEqual([]);
  });

  it('rejects with FILE_WRITE_FAILED, leaving nothing behind, when the temp file cannot be written', async () => {
    const { dir, workspace } = setup();
    writeFileSync(join(dir, 'plain'), 'x');
    await expect(prepareFileWriteInPool(workspace.resolve('plain/child.txt'), 'x')).rejects.toBeInstanceOf(FileWriteFailedError);
    await expect(prepareFileWriteInPool(workspace.resolve('missing/child.txt'), 'x', { createParents: false })).rejects.toBeInstanceOf(FileWriteFailedError);
    expect(readdirSync(dir)).toEqual(['plain']);
  });
});

describe('deletePath', () => {
  it('removes files, links (not their targets) and empty directories; a missing path is not an error', () => {
    const { dir, workspace } = setup();
    writeFileSync(join(dir, 'a.txt'), 'a');
    symlinkSync('a.txt', join(dir, 'link'));
    mkdirSync(join(dir, 'empty'));
    expect(deletePath(workspace.resolve('link'))).toEqual({ existed: true, kind: 'symlink' });
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('a');
    expect(deletePath(workspace.resolve('a.txt'))).toEqual({ existed: true, kind: 'file' });
    expect(deletePath(workspace.resolve('empty'))).toEqual({ existed: true, kind: 'dir' });
    expect(deletePath(workspace.resolve('a.txt'))).toEqual({ existed: false });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a non-empty directory', () => {
    const { dir, workspace } = setup();
    mkdirSync(join(dir, 'full'));
    writeFileSync(join(dir, 'full/x'), 'x');
    expect(() => deletePath(workspace.resolve('full'))).toThrow(/ENOTEMPTY/);
    expect(readdirSync(join(dir, 'full'))).toEqual(['x']);
  });
});

describe('movePath', () => {
  it('renames files and links, creating missing parents, and refuses an existing destination unless asked', () => {
    const { dir, workspace } = setup();
    writeFileSync(join(dir, 'a.txt'), 'a');
    chmodSync(join(dir, 'a.txt'), 0o640);
    movePath(workspace.resolve('a.txt'), workspace.resolve('docs/b.txt'));
    expect(readFileSync(join(dir, 'docs/b.txt'), 'utf8')).toBe('a');
    expect(mode(join(dir, 'docs/b.txt'))).toBe(0o640);
    symlinkSync('docs/b.txt', join(dir, 'link'));
    movePath(workspace.resolve('link'), workspace.resolve('docs/link'));
    expect(readlinkSync(join(dir, 'docs/link'))).toBe('docs/b.txt');
    writeFileSync(join(dir, 'c.txt'), 'c');
    expect(() => movePath(workspace.resolve('c.txt'), workspace.resolve('docs/b.txt'))).toThrow(/EEXIST/);
    movePath(workspace.resolve('c.txt'), workspace.resolve('docs/b.txt'), { overwrite: true });
    expect(readFileSync(join(dir, 'docs/b.txt'), 'utf8')).toBe('c');
    expect(readdirSync(dir).sort()).toEqual(['docs']);
  });

  it('fails with FILE_WRITE_FAILED when the source is missing', () => {
    const { workspace } = setup();
    expect(() => movePath(workspace.resolve('nope'), workspace.resolve('there'))).toThrow(FileWriteFailedError);
  });
});
