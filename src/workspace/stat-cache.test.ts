import { describe, expect, it } from 'vitest';
import type { SnapshotEntry } from './snapshot.js';
import { createStatCacheState, isStatCacheState, StatCache } from './stat-cache.js';

const entry = (overrides: Partial<SnapshotEntry> = {}): SnapshotEntry => ({
  kind: 'file',
  hash: 'h1',
  size: 10,
  mode: 0o644,
  mtimeMs: 1_000,
  ctimeMs: 1_000,
  ino: 7,
  ...overrides,
});

describe('StatCache', () => {
  const state = createStatCacheState(
    [
      ['workspace:a', entry()],
      ['workspace:big', entry({ hash: null })],
    ],
    10_000,
    2_000,
  );

  it('trusts an old entry whose whole signature matches', () => {
    expect(new StatCache(state).lookup('workspace:a', 'file', entry())).toBe('h1');
  });

  it('misses on any change of size, mtime, ctime, inode, mode or kind', () => {
    const cache = new StatCache(state);
    for (const change of [{ size: 11 }, { mtimeMs: 1_001 }, { ctimeMs: 999 }, { ino: 8 }, { mode: 0o755 }]) {
      expect(cache.lookup('workspace:a', 'file', entry(change))).toBeNull();
    }
    expect(cache.lookup('workspace:a', 'symlink', entry())).toBeNull();
    expect(cache.lookup('workspace:other', 'file', entry())).toBeNull();
  });

  it('keeps only hashed entries and survives a JSON round trip', () => {
    expect(Object.keys(state.entries)).toEqual(['workspace:a']);
    const revived = JSON.parse(JSON.stringify(state));
    expect(isStatCacheState(revived)).toBe(true);
    expect(new StatCache(revived).lookup('workspace:a', 'file', entry())).toBe('h1');
  });

  it('does not trust racy entries: mtime not strictly older than scan start less the window', () => {
    const at = (mtimeMs: number) => createStatCacheState([['workspace:a', entry({ mtimeMs })]], 10_000, 2_000);
    expect(new StatCache(at(7_999)).lookup('workspace:a', 'file', entry({ mtimeMs: 7_999 }))).toBe('h1');
    expect(new StatCache(at(8_000)).lookup('workspace:a', 'file', entry({ mtimeMs: 8_000 }))).toBeNull();
    expect(new StatCache(at(10_000)).lookup('workspace:a', 'file', entry({ mtimeMs: 10_000 }))).toBeNull();
    expect(new StatCache(at(12_000)).lookup('workspace:a', 'file', entry({ mtimeMs: 12_000 }))).toBeNull();
  });

  it('treats a missing or malformed state as empty', () => {
    expect(new StatCache(undefined).lookup('workspace:a', 'file', entry())).toBeNull();
    expect(new StatCache({ version: 2 } as never).lookup('workspace:a', 'file', entry())).toBeNull();
    expect(isStatCacheState(null)).toBe(false);
  });
});
