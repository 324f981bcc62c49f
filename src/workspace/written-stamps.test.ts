import { chmodSync, lstatSync, mkdtempSync, realpathSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hashContent } from '../model/index.js';
import { prepareFileWrite } from './atomic-write.js';
import { replaceIf } from './replace-if.js';
import { Workspace } from './workspace.js';
import { writtenStamps, type WrittenStamp } from './written-stamps.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writes `content` at `name` as a rewind does (temp file, then compare-and-replace), with a pause
 * longer than any clock tick between the write and its going into place, and returns its stamp.
 */
async function writeStamped(name: string, content: string): Promise<{ path: string; hash: string; stamp: WrittenStamp | null; workspace: Workspace }> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'wp-stamps-')));
  const workspace = new Workspace({ roots: [{ name: 'workspace', dir, kind: 'workspace' }] });
  const path = join(dir, name);
  writeFileSync(path, 'before');
  const write = prepareFileWrite(workspace.resolve(name), content, { durable: false });
  await pause(30);
  expect(replaceIf(workspace.resolve(name), () => true, write)).toMatchObject({ replaced: true });
  const hash = hashContent(content);
  return { path, hash, stamp: writtenStamps.stampOf(path, hash, write.written!), workspace };
}

describe('writtenStamps: a file this process wrote, known by one lstat', () => {
  afterEach(() => writtenStamps.clear());

  it('knows a file put in place after its bytes were written, for that content only', async () => {
    const { path, hash, stamp } = await writeStamped('a.txt', 'ours\n');
    expect(stamp).not.toBeNull();
    writtenStamps.keep(path, stamp);
    expect(writtenStamps.holding(path, hash)).toEqual(stamp);
    expect(writtenStamps.holding(path, hashContent('other\n'))).toBeNull();
    // Looked up with the lstat a resolve took: the same answer.
    expect(writtenStamps.holding(path, hash, lstatSync(path))).toEqual(stamp);
  });

  it('does not know it once anyone wrote into it, even with the same size and its modification time set back', async () => {
    const { path, hash, stamp } = await writeStamped('a.txt', 'ours\n');
    writtenStamps.keep(path, stamp);
    const { mtime, atime } = lstatSync(path);
    writeFileSync(path, 'them\n'); // in place: the same inode and size
    utimesSync(path, atime, mtime);
    expect(writtenStamps.holding(path, hash)).toBeNull();
    // Forgotten: even the same bytes put back are read again.
    writeFileSync(path, 'ours\n');
    expect(writtenStamps.holding(path, hash)).toBeNull();
  });

  it('does not know it once its change time moved (a chmod, even to the same bits), or once a save by rename put another file there', async () => {
    const chmodded = await writeStamped('a.txt', 'ours\n');
    writtenStamps.keep(chmodded.path, chmodded.stamp);
    chmodSync(chmodded.path, lstatSync(chmodded.path).mode & 0o7777);
    // Only the change time differs: no program can set it back, so it is what vouches for the bytes.
    const after = lstatSync(chmodded.path, { bigint: true });
    expect([after.ino, after.size, after.mtimeNs]).toEqual([chmodded.stamp!.ino, chmodded.stamp!.size, chmodded.stamp!.mtimeNs]);
    expect(after.ctimeNs).not.toBe(chmodded.stamp!.ctimeNs);
    expect(writtenStamps.holding(chmodded.path, chmodded.hash)).toBeNull();

    const renamed = await writeStamped('b.txt', 'ours\n');
    writtenStamps.keep(renamed.path, renamed.stamp);
    writeFileSync(`${renamed.path}.new`, 'ours\n');
    renameSync(`${renamed.path}.new`, renamed.path);
    expect(writtenStamps.holding(renamed.path, renamed.hash)).toBeNull();
  });

  it('stamps nothing it cannot prove: another inode, a modification time not older than the change time, whole-second times', async () => {
    const { path, hash, workspace } = await writeStamped('a.txt', 'ours\n');
    const write = prepareFileWrite(workspace.resolve('a.txt'), 'ours\n', { durable: false });
    // Not what is at the path: the write was never put in place.
    expect(writtenStamps.stampOf(path, hash, write.written!)).toBeNull();
    write.abort();

    // A modification time at or after the change time: a write into the file in the same clock
    // tick would leave both as they are, so the bytes cannot be vouched for.
    const future = new Date(Date.now() + 60_000);
    utimesSync(path, future, future);
    const after = lstatSync(path, { bigint: true });
    const identity = { dev: after.dev, ino: after.ino, size: after.size, mtimeNs: after.mtimeNs };
    expect(after.mtimeNs > after.ctimeNs).toBe(true);
    expect(writtenStamps.stampOf(path, hash, identity)).toBeNull();

    // A file system that keeps whole seconds only.
    utimesSync(path, new Date(1_700_000_000_000), new Date(1_700_000_000_000));
    const coarse = lstatSync(path, { bigint: true });
    expect(writtenStamps.stampOf(path, hash, { dev: coarse.dev, ino: coarse.ino, size: coarse.size, mtimeNs: coarse.mtimeNs })).toBeNull();
  });
});
