import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyToolEdit, applyToolWrite, CheckpointedFs, openCaptureContext } from '../../src/checkpoint/index.js';
import { createCaptureFixture, type CaptureFixture } from '../../src/checkpoint/fixtures/capture-fixture.js';
import { WaypointError } from '../../src/model/index.js';
import { Workspace } from '../../src/workspace/index.js';
import { snapshotDir } from '../fork/fork-fixture.js';

const long = 'n'.repeat(256);
const longUnicode = 'é'.repeat(128); // 128 characters, 256 bytes: the limit is in bytes

describe('names longer than the file system allows', () => {
  let fx: CaptureFixture;
  beforeEach(async () => {
    fx = await createCaptureFixture();
    mkdirSync(join(fx.root, 'src'));
    writeFileSync(join(fx.root, 'src', 'a.txt'), 'a\n');
  });
  afterEach(() => fx.cleanup());

  it('every write, read and resolve raises NAME_TOO_LONG (exit 2) naming the path, and changes nothing', async () => {
    const fs = new CheckpointedFs(fx.context);
    const cases: Array<[string, () => unknown]> = [
      ['applyToolWrite', () => applyToolWrite(fx.context, { path: long, content: 'x' })],
      ['applyToolWrite in a directory', () => applyToolWrite(fx.context, { path: `src/${long}/a.txt`, content: 'x' })],
      ['applyToolWrite, multibyte', () => applyToolWrite(fx.context, { path: longUnicode, content: 'x' })],
      ['applyToolEdit', () => applyToolEdit(fx.context, { path: long, oldString: 'a', newString: 'b' })],
      ['fs.writeFile', () => fs.writeFile(long, 'x')],
      ['fs.deleteFile', () => fs.deleteFile(long)],
      ['fs.mkdir', () => fs.mkdir(`${long}/deeper`, { recursive: true })],
      ['fs.rmdir', () => fs.rmdir(long)],
      ['fs.rename', () => fs.rename('src/a.txt', `src/${long}`)],
      ['fs.move', () => fs.move('src/a.txt', long)],
      ['workspace.resolve (reads)', () => fx.context.workspace.resolve(`src/${long}`)],
      ['a path over 4095 bytes', () => applyToolWrite(fx.context, { path: Array.from({ length: 20 }, () => 'd'.repeat(250)).join('/'), content: 'x' })],
      ['a session root with a long name', () => new Workspace({ roots: [{ name: 'workspace', dir: join(fx.dir, long), kind: 'workspace' }] })],
    ];
    const before = snapshotDir(fx.root);
    for (const [name, call] of cases) {
      let caught: unknown;
      try {
        await call();
      } catch (error) {
        caught = error;
      }
      expect({ name, typed: WaypointError.is(caught), code: (caught as WaypointError).code, exitCode: (caught as WaypointError).exitCode }).toEqual({
        name,
        typed: true,
        code: 'NAME_TOO_LONG',
        exitCode: 2,
      });
      expect((caught as WaypointError).message).toMatch(/bytes long, more than the (255|4095)/);
    }
    expect(snapshotDir(fx.root)).toEqual(before);
    expect(readdirSync(join(fx.root, 'src'))).toEqual(['a.txt']);
    expect(await fx.store.listCheckpoints(fx.sessionId)).toEqual([]);
  });

  it('a capture context over a session whose workdir has a name too long is refused with NAME_TOO_LONG', async () => {
    const session = await fx.store.createSession({ workdir: join(fx.dir, long) });
    const error = await openCaptureContext({ store: fx.store, blobs: fx.blobs, sessionId: session.id, turnId: null }).catch((caught: unknown) => caught);
    expect(WaypointError.is(error, 'NAME_TOO_LONG')).toBe(true);
  });
});
