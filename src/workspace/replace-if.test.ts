import { mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareFileWrite } from './atomic-write.js';
import { moveIf, replaceIf, type HeldFile } from './replace-if.js';
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
    expect(outcome).toMatchObject({ replaced: true, previous: { exists: true } });
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
});
