import { existsSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashContent } from '../model/index.js';
import { writtenStamps } from '../workspace/index.js';
import { provableStamp } from '../../test/fixtures/stamp-proof.js';
import { checkpointPatch } from './checkpoint-patch.js';
import { CheckpointedFs } from './checkpointed-fs.js';
import { DIRECTORY_MODE, SYMLINK_MODE, modeKind } from './file-capture.js';
import { createCaptureFixture, errorCode, type CaptureFixture } from './fixtures/capture-fixture.js';

describe('CheckpointedFs', () => {
  let fx: CaptureFixture;
  let fs: CheckpointedFs;
  beforeEach(async () => {
    fx = await createCaptureFixture({ metadata: (dir) => ({ roots: [{ name: 'data', dir: join(dir, 'data'), kind: 'data' }] }) });
    fs = new CheckpointedFs(fx.context, { maxFileSize: 4096 });
  });
  afterEach(() => fx.cleanup());

  const all = () => fx.store.listCheckpoints(fx.sessionId);

  it('a write is stamped (an undo knows the file by its stat) exactly when its times prove it; a write into it since is not trusted', async () => {
    writtenStamps.clear();
    const { checkpoints } = await fs.writeFile('a.txt', 'after\n');
    const path = join(fx.root, 'a.txt');
    const provable = provableStamp(path);
    expect(writtenStamps.holding(path, checkpoints[0]!.afterHash!) !== null).toBe(provable);
    writeFileSync(path, 'other\n');
    expect(writtenStamps.holding(path, checkpoints[0]!.afterHash!)).toBeNull();
  });

  it('write, overwrite and delete: each original is in the blob store, byte-exact', async () => {
    const binary = Buffer.from([0, 1, 2, 254, 255, 0]);
    await fs.writeFile('a.bin', binary, { mode: 0o640 });
    await fs.writeFile('a.bin', 'text now');
    await fs.deleteFile('a.bin');
    const [create, modify, remove] = await all();
    expect(create).toMatchObject({
      op: 'create',
      source: 'fs',
      beforeHash: null,
      afterHash: hashContent(binary),
      afterMode: 0o640,
      patch: null,
      turnId: fx.turnId,
      anchorMessageId: fx.userMessageId,
    });
    expect(modify).toMatchObject({ op: 'modify', beforeHash: hashContent(binary), beforeMode: 0o640, afterMode: 0o640 });
    expect(remove).toMatchObject({ op: 'delete', beforeHash: hashContent('text now'), afterHash: null, beforeMode: 0o640 });
    expect((await fx.blobs.get(modify!.beforeHash!)).equals(binary)).toBe(true);
    expect((await fx.blobs.get(remove!.beforeHash!)).toString()).toBe('text now');
    expect(existsSync(join(fx.root, 'a.bin'))).toBe(false);
    expect(await checkpointPatch(fx.blobs, remove!)).toContain('-text now');
  });

  it('the same path changed twice in a turn keeps its original once (content-addressed) and chains before/after', async () => {
    writeFileSync(join(fx.root, 'n.txt'), 'original');
    await fs.writeFile('n.txt', 'v1');
    await fs.writeFile('n.txt', 'v2');
    await fs.writeFile('n.txt', 'original');
    const rows = await all();
    expect(rows.map((row) => [row.beforeHash, row.afterHash])).toEqual([
      [hashContent('original'), hashContent('v1')],
      [hashContent('v1'), hashContent('v2')],
      [hashContent('v2'), hashContent('original')],
    ]);
    expect((await fx.store.blobs.stats()).blobCount).toBe(3);
  });

  it('rename and move record source and target with the content hash; overwrite keeps the target first', async () => {
    writeFileSync(join(fx.root, 'a.txt'), 'A');
    writeFileSync(join(fx.root, 'b.txt'), 'B');
    await fs.rename('a.txt', 'c.txt');
    await fs.move('c.txt', 'sub/dir/c.txt');
    await fs.move('sub/dir/c.txt', 'b.txt', { overwrite: true });
    const rows = await all();
    expect(rows.map((row) => [row.op, row.path, row.toPath, row.beforeHash, row.afterHash])).toEqual([
      ['rename', 'workspace:a.txt', 'workspace:c.txt', hashContent('A'), hashContent('A')],
      ['move', 'workspace:c.txt', 'workspace:sub/dir/c.txt', hashContent('A'), hashContent('A')],
      ['delete', 'workspace:b.txt', null, hashContent('B'), null],
      ['move', 'workspace:sub/dir/c.txt', 'workspace:b.txt', hashContent('A'), hashContent('A')],
    ]);
    expect((await fx.blobs.get(hashContent('B'))).toString()).toBe('B');
    expect(readFileSync(join(fx.root, 'b.txt'), 'utf8')).toBe('A');
  });

  it('refusals change and record nothing: existing destination, missing source, outside the root, directory as file', async () => {
    writeFileSync(join(fx.root, 'a.txt'), 'A');
    writeFileSync(join(fx.root, 'b.txt'), 'B');
    mkdirSync(join(fx.root, 'd'));
    const codes = [
      await errorCode(() => fs.rename('a.txt', 'b.txt')),
      await errorCode(() => fs.rename('nope.txt', 'x.txt')),
      await errorCode(() => fs.writeFile('../out.txt', 'x')),
      await errorCode(() => fs.move('a.txt', '../../out.txt')),
      await errorCode(() => fs.deleteFile('d')),
      await errorCode(() => fs.writeFile('d', 'x')),
      await errorCode(() => fs.rmdir('a.txt')),
    ];
    expect(codes).toEqual([
      'FILE_WRITE_FAILED',
      'FILE_WRITE_FAILED',
      'PATH_OUTSIDE_WORKSPACE',
      'PATH_OUTSIDE_WORKSPACE',
      'PATH_IS_DIRECTORY',
      'PATH_IS_DIRECTORY',
      'PATH_NOT_DIRECTORY',
    ]);
    expect(readFileSync(join(fx.root, 'a.txt'), 'utf8')).toBe('A');
    expect(readFileSync(join(fx.root, 'b.txt'), 'utf8')).toBe('B');
    expect(existsSync(join(fx.dir, 'out.txt'))).toBe(false);
    expect(await all()).toEqual([]);
  });

  it('files above maxFileSize are changed as asked and recorded skipped / too_large', async () => {
    writeFileSync(join(fx.root, 'big.dat'), Buffer.alloc(8192, 1));
    await fs.writeFile('big.dat', 'small now');
    await fs.writeFile('huge.dat', Buffer.alloc(5000, 2));
    await fs.deleteFile('huge.dat');
    const rows = await all();
    expect(rows.map((row) => [row.op, row.status, row.skipReason, row.beforeHash, row.afterHash])).toEqual([
      ['modify', 'skipped', 'too_large', null, null],
      ['create', 'skipped', 'too_large', null, null],
      ['delete', 'skipped', 'too_large', null, null],
    ]);
    expect(readFileSync(join(fx.root, 'big.dat'), 'utf8')).toBe('small now');
    expect(existsSync(join(fx.root, 'huge.dat'))).toBe(false);
  });

  it('mkdir records each created directory; rmdir of an empty one is recorded, a recursive one skipped and only on request', async () => {
    await fs.mkdir('x/y/z', { recursive: true });
    await fs.writeFile('x/y/z/f.txt', 'f');
    expect(await errorCode(() => fs.rmdir('x'))).toBe('FILE_WRITE_FAILED');
    expect(existsSync(join(fx.root, 'x/y/z/f.txt'))).toBe(true);
    await fs.mkdir('empty');
    await fs.rmdir('empty');
    await fs.rmdir('x', { recursive: true });
    const rows = await all();
    expect(rows.map((row) => [row.op, row.path, row.status, row.skipReason])).toEqual([
      ['mkdir', 'workspace:x', 'recorded', null],
      ['mkdir', 'workspace:x/y', 'recorded', null],
      ['mkdir', 'workspace:x/y/z', 'recorded', null],
      ['create', 'workspace:x/y/z/f.txt', 'recorded', null],
      ['mkdir', 'workspace:empty', 'recorded', null],
      ['rmdir', 'workspace:empty', 'recorded', null],
      ['rmdir', 'workspace:x', 'skipped', 'recursive_delete'],
    ]);
    expect(modeKind(rows[0]!.afterMode)).toBe('dir');
    expect(rows[0]!.afterMode! & DIRECTORY_MODE).toBe(DIRECTORY_MODE);
    expect(existsSync(join(fx.root, 'x'))).toBe(false);
  });

  it('symlinks are recorded as links (mode type bits, link text as content), never followed on delete', async () => {
    writeFileSync(join(fx.root, 'target.txt'), 'T');
    symlinkSync('target.txt', join(fx.root, 'ln'));
    await fs.rename('ln', 'ln2');
    await fs.deleteFile('ln2');
    const [rename, remove] = await all();
    expect(modeKind(rename!.beforeMode)).toBe('symlink');
    expect(rename!.beforeMode! & SYMLINK_MODE).toBe(SYMLINK_MODE);
    expect((await fx.blobs.get(remove!.beforeHash!)).toString()).toBe('target.txt');
    expect(readFileSync(join(fx.root, 'target.txt'), 'utf8')).toBe('T');
    expect(() => readlinkSync(join(fx.root, 'ln2'))).toThrow();
  });

  it('a link pointing outside the workspace can be renamed and deleted (never followed); writing through it stays refused', async () => {
    const outside = join(fx.dir, 'outside.txt');
    writeFileSync(outside, 'not ours');
    symlinkSync(outside, join(fx.root, 'out'));
    await expect(fs.writeFile('out', 'through')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    mkdirSync(join(fx.root, 'sub'));
    await fs.rename('out', 'sub/out2');
    expect(readlinkSync(join(fx.root, 'sub', 'out2'))).toBe(outside);
    await expect(fs.writeFile('sub/out2', 'through')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    // A path below such a link is still outside.
    await expect(fs.deleteFile('sub/out2/x')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    await fs.deleteFile('sub/out2');
    expect(existsSync(join(fx.root, 'sub', 'out2'))).toBe(false);
    expect(readFileSync(outside, 'utf8')).toBe('not ours');
    const [rename, remove] = await all();
    expect(rename).toMatchObject({ op: 'rename', path: 'workspace:out', toPath: 'workspace:sub/out2' });
    expect(modeKind(remove!.beforeMode)).toBe('symlink');
    expect((await fx.blobs.get(remove!.beforeHash!)).toString()).toBe(outside);
  });

  it('an untracked root (data) and the store directory are written but never recorded', async () => {
    await fs.writeFile(join(fx.dir, 'data', 'state.json'), '{}');
    await fs.writeFile('notes.md', 'tracked');
    expect(readFileSync(join(fx.dir, 'data', 'state.json'), 'utf8')).toBe('{}');
    expect((await all()).map((row) => row.path)).toEqual(['workspace:notes.md']);
    expect(statSync(join(fx.dir, 'data')).isDirectory()).toBe(true);
  });
});
