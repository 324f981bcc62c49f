import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareFileWrite } from './atomic-write.js';
import { LINK_MODE } from './link-mode.js';
import { replaceIf } from './replace-if.js';
import { Workspace } from './workspace.js';

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});
function setup() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'wp-link-write-')));
  dirs.push(base);
  const dir = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(dir);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'outside');
  return { dir, outside, workspace: new Workspace({ roots: [{ name: 'workspace', dir, kind: 'workspace' }] }) };
}
const lexical = (workspace: Workspace, key: string) => workspace.resolveKey(key, { followLink: false });

describe('links as entries: lexical paths, link writes, compare-and-replace of a link', () => {
  it('a link mode writes a link with the exact text (absolute outside, dangling, not UTF-8), replacing a link there without following it', () => {
    const { dir, outside, workspace } = setup();
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'out'));
    for (const [name, text] of [
      ['out', Buffer.from('../elsewhere')],
      ['abs', Buffer.from(join(outside, 'secret.txt'))],
      ['dang', Buffer.from('no/such/file')],
      ['bytes', Buffer.from([0x61, 0xff, 0x62])],
    ] as const) {
      const write = prepareFileWrite(lexical(workspace, `workspace:${name}`), text, { mode: LINK_MODE | 0o777, durable: false });
      expect(write.mode & LINK_MODE).toBe(LINK_MODE);
      write.commit();
      expect(readlinkSync(join(dir, name), { encoding: 'buffer' }).equals(text)).toBe(true);
    }
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('outside');
    expect(readdirSync(dir).sort()).toEqual(['abs', 'bytes', 'dang', 'out']);
  });

  it('replaceIf takes a link aside as a link (its text, never its target), puts it back when refused, replaces it with a file when accepted', () => {
    const { dir, outside, workspace } = setup();
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'out'));
    const seen: string[] = [];
    const refused = replaceIf(
      lexical(workspace, 'workspace:out'),
      (held) => {
        if (held.exists) seen.push(`${held.content.toString()} ${(held.mode & LINK_MODE) === LINK_MODE}`);
        return false;
      },
      null,
    );
    expect(refused).toMatchObject({ replaced: false, reason: 'refused' });
    expect(seen).toEqual([`${join(outside, 'secret.txt')} true`]);
    expect(readlinkSync(join(dir, 'out'))).toBe(join(outside, 'secret.txt'));

    const target = lexical(workspace, 'workspace:out');
    const next = prepareFileWrite(target, 'a file now', { mode: 0o644, durable: false });
    expect(replaceIf(target, () => true, next)).toMatchObject({ replaced: true });
    expect(lstatSync(join(dir, 'out')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'out'), 'utf8')).toBe('a file now');
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('outside');
    expect(readdirSync(dir)).toEqual(['out']);
  });

  it('a lexical path below a link names the link and is never written, deleted or moved through', () => {
    const { dir, outside, workspace } = setup();
    mkdirSync(join(dir, 'real'));
    symlinkSync(outside, join(dir, 'outdir'));
    symlinkSync('real', join(dir, 'indir'));
    for (const link of ['outdir', 'indir']) {
      const below = lexical(workspace, `workspace:${link}/secret.txt`);
      expect(below).toMatchObject({ lexical: true, linkInPath: link, realPath: join(dir, link, 'secret.txt') });
      expect(() => prepareFileWrite(below, 'through', { mode: 0o644, durable: false })).toThrow(/symbolic link along it/);
      expect(() => replaceIf(below, () => true, null)).toThrow(/symbolic link along it/);
    }
    expect(readdirSync(join(dir, 'real'))).toEqual([]);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('outside');
    // A followed resolution of the same path is refused as before (the link leads outside).
    expect(() => workspace.resolveKey('workspace:outdir/secret.txt')).toThrow(expect.objectContaining({ code: 'PATH_OUTSIDE_WORKSPACE' }));
  });
});
