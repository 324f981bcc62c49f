import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WaypointError } from '../model/errors/index.js';
import { materializeTree, type MaterializeFile } from './materialize.js';
import { PathOutsideWorkspaceError } from './path-outside-workspace-error.js';

const base = () => realpathSync(mkdtempSync(join(tmpdir(), 'wp-mat-')));

describe('materializeTree', () => {
  it('writes bytes and modes exactly, links as links, reporting progress', () => {
    const parent = base();
    const binary = randomBytes(50_000);
    const files: MaterializeFile[] = [
      { path: 'bin/run.sh', mode: 0o755, content: Buffer.from('#!/bin/sh\n') },
      { path: 'data/blob.bin', mode: 0o600, content: () => binary },
      { path: 'empty', mode: 0o444, content: Buffer.alloc(0) },
      { path: 'sticky', mode: 0o1644, content: Buffer.from('s') },
      { path: 'link', mode: 0o777, content: Buffer.from('bin/run.sh'), kind: 'symlink' },
    ];
    const progress: [number, number][] = [];
    const result = materializeTree(join(parent, 'fork'), files, { onProgress: (done, total) => progress.push([done, total]) });
    const dir = join(parent, 'fork');
    expect(result).toEqual({ dir, files: 5, bytes: 10 + 50_000 + 0 + 1 + 10 });
    expect(readFileSync(join(dir, 'bin/run.sh'), 'utf8')).toBe('#!/bin/sh\n');
    expect(readFileSync(join(dir, 'data/blob.bin')).equals(binary)).toBe(true);
    for (const file of files.filter((candidate) => candidate.kind !== 'symlink')) {
      expect(statSync(join(dir, file.path)).mode & 0o7777).toBe(file.mode);
    }
    expect(lstatSync(join(dir, 'link')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'link'))).toBe('bin/run.sh');
    expect(progress).toEqual([
      [1, 5],
      [2, 5],
      [3, 5],
      [4, 5],
      [5, 5],
    ]);
    expect(readdirSync(parent)).toEqual(['fork']);
  });

  it('refuses escaping paths, including through a link the tree itself created, and leaves nothing behind', () => {
    const parent = base();
    const outside = join(parent, 'outside');
    mkdirSync(outside);
    const attempts: MaterializeFile[][] = [
      [{ path: '../escape.txt', mode: 0o644, content: Buffer.from('x') }],
      [{ path: join(outside, 'abs.txt'), mode: 0o644, content: Buffer.from('x') }],
      [
        { path: 'out', mode: 0o777, content: Buffer.from(outside), kind: 'symlink' },
        { path: 'out/through.txt', mode: 0o644, content: Buffer.from('x') },
      ],
    ];
    for (const files of attempts) {
      expect(() => materializeTree(join(parent, 'fork'), files)).toThrow(PathOutsideWorkspaceError);
      expect(readdirSync(parent)).toEqual(['outside']);
    }
    expect(readdirSync(outside)).toEqual([]);
  });

  it('refuses a non-empty target and cleans up when a content function fails', () => {
    const parent = base();
    mkdirSync(join(parent, 'taken'));
    writeFileSync(join(parent, 'taken/x'), 'x');
    try {
      materializeTree(join(parent, 'taken'), []);
      throw new Error('unreachable');
    } catch (error) {
      expect(WaypointError.is(error, 'MATERIALIZE_TARGET_NOT_EMPTY')).toBe(true);
    }
    const failing: MaterializeFile[] = [
      { path: 'a', mode: 0o644, content: Buffer.from('a') },
      {
        path: 'b',
        mode: 0o644,
        content: () => {
          throw new Error('blob gone');
        },
      },
    ];
    expect(() => materializeTree(join(parent, 'fork'), failing)).toThrow(/blob gone/);
    expect(existsSync(join(parent, 'fork'))).toBe(false);
    expect(readdirSync(parent)).toEqual(['taken']);
  });
});
