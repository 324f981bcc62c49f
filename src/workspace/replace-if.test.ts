import { lstatSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareFileWrite } from './atomic-write.js';
import { moveIf, replaceIf, type HeldFile, type KnownFile } from './replace-if.js';
import { Workspace } from './workspace.js';

function setup() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'wp-replace-if-')));
  return { dir, workspace: new Workspace({ roots: [{ name: 'workspace', dir, kind: 'workspace' }] }) };
}
const text = (held: HeldFile) => (held.exists ? held.content.toString() : null);

describe('replaceIf / moveIf: compare and replace in one step', () => {
  it('replaces an accepted file, deletes one with no replacement, and leaves nothing beside them', () => {
    const { dir, workspace } = setup();
    writeFileSync(join(dir, 'a.txt'), 'old');
    const next = prepareFileWrite(workspace.resolve('a.txt'), 'new', { durable: false });
    const outcome = replaceIf(workspace.resolve('a.txt'), (held) => text(held) === 'old', next);
    expect(outcome).toMatchObject({ replaced: true });
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('new');
    expect(replaceIf(workspace.resolve('a.txt'), (held) => text(held) === 'new', null)).toMatchObject({ replaced: true });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refused: the file goes back as it was (same inode), the replacement is not written', () => {
    const { dir, workspace } = setup();
    writeFileSync(join(dir, 'a.txt'), 'the person saved this');
    const inode = statSync(join(dir, 'a.txt')).ino;
    const next = prepareFileWrite(workspace.resolve('a.txt'), 'agent', { durable: false });
    const outcome = replaceIf(workspace.resolve('a.txt'), (held) => text(held) === 'expected', next);
    next.abort();
    expect(outcome).toMatchObject({ replaced: false, reason: 'refused', displaced: null });
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('the person saved this');
    expect(statSync(join(dir, 'a.txt')).ino).toBe(inode);
    expect(readdirSync(dir)).toEqual(['a.txt']);
  });

  it('a file saved onto the path after it was taken wins: raced when accepted, displaced (kept for the caller) when refused', () => {
    const { dir, workspace } = setup();
    const save = (content: string) => {
      writeFileSync(join(dir, 'save.tmp'), content);
      renameSync(join(dir, 'save.tmp'), join(dir, 'a.txt'));
    };
    writeFileSync(join(dir, 'a.txt'), 'expected');
    const next = prepareFileWrite(workspace.resolve('a.txt'), 'agent', { durable: false });
    const raced = replaceIf(
      workspace.resolve('a.txt'),
      (held) => {
        save('person, at that instant');
        return text(held) === 'expected';
      },
      next,
    );
    expect(raced).toMatchObject({ replaced: false, reason: 'raced' });
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('person, at that instant');

    const refused = replaceIf(
      workspace.resolve('a.txt'),
      (held) => {
        save('person, again');
        return text(held) === 'expected';
      },
      null,
    );
    expect(refused).toMatchObject({ replaced: false, reason: 'refused', displaced: { content: Buffer.from('person, at that instant') } });
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('person, again');
    expect(readFileSync(refused.displaced!.parkedAt, 'utf8')).toBe('person, at that instant');
  });

  it('moveIf renames the file itself when accepted, never over a file at the destination', () => {
    const { dir, workspace } = setup();
    writeFileSync(join(dir, 'from.txt'), 'moved');
    const inode = statSync(join(dir, 'from.txt')).ino;
    expect(moveIf(workspace.resolve('from.txt'), workspace.resolve('sub/to.txt'), (held) => text(held) === 'moved')).toMatchObject({ moved: true });
    expect(statSync(join(dir, 'sub/to.txt')).ino).toBe(inode);
    writeFileSync(join(dir, 'from.txt'), 'second');
    expect(moveIf(workspace.resolve('from.txt'), workspace.resolve('sub/to.txt'), () => true)).toMatchObject({ moved: false, reason: 'raced' });
    expect(readFileSync(join(dir, 'from.txt'), 'utf8')).toBe('second');
    expect(readFileSync(join(dir, 'sub/to.txt'), 'utf8')).toBe('moved');
  });

  it('known: the very file unchanged is judged by the bytes the caller read; any write since (in place, same size, even with its time set back) is read again', () => {
    const { dir, workspace } = setup();
    const path = join(dir, 'lock.json');
    const knownOf = (content: string): KnownFile => {
      const stats = lstatSync(path, { bigint: true });
      return { content: Buffer.from(content), dev: stats.dev, ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs };
    };
    const seen: Array<string | null> = [];
    const judge = (held: HeldFile) => {
      seen.push(text(held));
      return false;
    };
    writeFileSync(path, 'version one');
    // Standing for what the caller read: judged instead of the file, which is not read again.
    replaceIf(workspace.resolve('lock.json'), judge, null, { known: knownOf('as the caller read it') });
    writeFileSync(join(dir, 'lock.json'), 'version one');
    const before = knownOf('version one');
    // Rewritten in place with as many bytes and its modification time set back: the change time still differs.
    writeFileSync(path, 'version two');
    utimesSync(path, statSync(path).atime, new Date(Number(before.mtimeNs / 1_000_000n)));
    replaceIf(workspace.resolve('lock.json'), judge, null, { known: before });
    expect(seen).toEqual(['as the caller read it', 'version two']);
    expect(readFileSync(path, 'utf8')).toBe('version two');
    expect(readdirSync(dir)).toEqual(['lock.json']);
  });

  it('known with its hash: handed to the judge with the unchanged file only; a file written since comes without it, to be hashed from its bytes', () => {
    const { dir, workspace } = setup();
    const path = join(dir, 'lock.json');
    writeFileSync(path, 'version one');
    const stats = lstatSync(path, { bigint: true });
    const known: KnownFile = {
      content: Buffer.from('version one'),
      hash: 'hash of version one',
      dev: stats.dev,
      ino: stats.ino,
      size: stats.size,
      mtimeNs: stats.mtimeNs,
      ctimeNs: stats.ctimeNs,
    };
    const held: HeldFile[] = [];
    const judge = (file: HeldFile) => {
      held.push(file);
      return false;
    };
    replaceIf(workspace.resolve('lock.json'), judge, null, { known });
    // Saved in place since, with as many bytes: the bytes on disk are judged, with no hash given.
    writeFileSync(path, 'version two');
    replaceIf(workspace.resolve('lock.json'), judge, null, { known });
    expect(held.map((file) => (file.exists ? [file.content.toString(), file.hash ?? null] : null))).toEqual([
      ['version one', 'hash of version one'],
      ['version two', null],
    ]);
    expect(readFileSync(path, 'utf8')).toBe('version two');
  });
});
