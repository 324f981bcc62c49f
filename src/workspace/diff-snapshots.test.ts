import { describe, expect, it } from 'vitest';
import { diffSnapshots } from './diff-snapshots.js';
import type { Snapshot, SnapshotEntry } from './snapshot.js';

const entry = (overrides: Partial<SnapshotEntry> = {}): SnapshotEntry => ({
  kind: 'file',
  hash: 'h',
  size: 1,
  mode: 0o644,
  mtimeMs: 1,
  ctimeMs: 1,
  ino: 1,
  ...overrides,
});

describe('diffSnapshots', () => {
  it('lists created, modified and deleted files sorted by path, with hashes on both sides', () => {
    const before: Snapshot = new Map([
      ['w:same', entry({ hash: 's' })],
      ['w:edited', entry({ hash: 'e1' })],
      ['w:chmod', entry({ hash: 'c' })],
      ['w:gone', entry({ hash: 'g' })],
      ['w:became-link', entry({ hash: 'x' })],
    ]);
    const after: Snapshot = new Map([
      ['w:z-new', entry({ hash: 'n' })],
      ['w:a-new', entry({ hash: 'n2' })],
      ['w:same', entry({ hash: 's', mtimeMs: 99, ino: 5 })],
      ['w:edited', entry({ hash: 'e2', size: 2 })],
      ['w:chmod', entry({ hash: 'c', mode: 0o755 })],
      ['w:became-link', entry({ hash: 'x', kind: 'symlink' })],
    ]);
    const diff = diffSnapshots(before, after);
    expect(diff.created.map((file) => [file.path, file.hash])).toEqual([
      ['w:a-new', 'n2'],
      ['w:z-new', 'n'],
    ]);
    expect(diff.deleted).toEqual([{ path: 'w:gone', kind: 'file', hash: 'g', size: 1, mode: 0o644 }]);
    expect(diff.modified.map((change) => change.path)).toEqual(['w:became-link', 'w:chmod', 'w:edited']);
    expect(diff.modified[2]).toEqual({
      path: 'w:edited',
      before: { kind: 'file', hash: 'e1', size: 1, mode: 0o644 },
      after: { kind: 'file', hash: 'e2', size: 2, mode: 0o644 },
    });
  });

  it('compares unhashed (too large) files by stat signature', () => {
    const big = entry({ hash: null, size: 100 });
    expect(diffSnapshots(new Map([['w:big', big]]), new Map([['w:big', { ...big }]])).modified).toEqual([]);
    expect(diffSnapshots(new Map([['w:big', big]]), new Map([['w:big', { ...big, mtimeMs: 2 }]])).modified).toHaveLength(1);
    expect(diffSnapshots(new Map([['w:big', big]]), new Map([['w:big', { ...big, hash: 'now-small' }]])).modified).toHaveLength(1);
  });
});
