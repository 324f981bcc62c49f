import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { createCliFixture, inspect, runCli, snapshotTree, type CliFixture } from './cli-harness.js';

describe('waypoint gc and usage (built CLI)', () => {
  let fixture: CliFixture;
  beforeEach(async () => {
    fixture = await createCliFixture();
  });
  afterEach(() => fixture.cleanup());

  async function addOrphan(): Promise<string> {
    const waypoint = await openWaypoint({ path: fixture.storePath });
    try {
      return await waypoint.blobs.put(Buffer.from('content nothing refers to any more\n'.repeat(50)));
    } finally {
      await waypoint.close();
    }
  }

  it('gc --dry-run reports what would be swept and freed, and removes nothing', async () => {
    const orphan = await addOrphan();
    const before = snapshotTree(fixture.dir);
    const run = fixture.cli('gc', '--dry-run');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Dry run: nothing was removed.');
    expect(run.stdout).toMatch(/Blobs: \d+ scanned, \d+ live, 1 unreachable \(would be removed\)\./);
    expect(run.stderr).toMatch(/^gc: .*marking what the records reach \(dry run\)$/m);
    const json = fixture.cli('gc', '--dry-run', '--json').json();
    expect(json).toMatchObject({ dryRun: true, keepSessions: null, removedSessions: [], gc: { unreachable: [orphan], missingRoots: [], missingBases: [] } });
    expect(json.freedBytes).toBeGreaterThan(0);
    expect(snapshotTree(fixture.dir)).toEqual(before);
  });

  it('gc sweeps unreachable blobs and reports the bytes freed; the next run finds nothing', async () => {
    const orphan = await addOrphan();
    const run = fixture.cli('gc', '--json');
    expect(run.code).toBe(0);
    const report = run.json();
    expect(report.gc.unreachable).toEqual([orphan]);
    expect(report.freedBytes).toBeGreaterThan(0);
    expect(report.after.blobCount).toBe(report.before.blobCount - 1);
    expect(await inspect(fixture, (waypoint) => waypoint.blobs.has(orphan))).toBe(false);
    // Every checkpoint is still readable.
    for (const id of fixture.checkpointIds) expect(fixture.cli('diff', id).code).toBe(0);
    expect(fixture.cli('gc', '--json').json().gc.unreachable).toEqual([]);
  });

  it('gc --keep-sessions N counts a session and its fork as one family: neither goes while the other is kept', () => {
    const fork = fixture.cli('fork', fixture.sessionId, '--stable', fixture.first.replyId, '--json').json();
    const dry = fixture.cli('gc', '--keep-sessions', '1', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Sessions: keeping the 1 most recently active session family; 0 sessions would be deleted.');
    const real = fixture.cli('gc', '--keep-sessions', '1', '--json');
    expect(real.code).toBe(0);
    expect(real.json().removedSessions).toEqual([]);
    expect(
      fixture
        .cli('sessions', '--json')
        .json()
        .sessions.map((session: { id: string }) => session.id)
        .sort(),
    ).toEqual([fixture.sessionId, fork.session.id].sort());
  });

  it('usage: store size by session, blob counts by encoding, content vs stored bytes, savings', () => {
    const text = fixture.cli('usage');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Store .*waypoint\.db: .* on disk \(database .*, blob packs .*\)$/m);
    expect(text.stdout).toMatch(/^Blobs: \d+ blobs, .* of content stored in .*$/m);
    expect(text.stdout).toMatch(/SESSION\s+KIND\s+MESSAGES\s+CHECKPOINTS\s+BLOBS\s+CONTENT\s+STORED\s+TITLE/);
    const report = fixture.cli('usage', '--json').json();
    expect(report.store.path).toBe(fixture.storePath);
    expect(report.store.totalBytes).toBe(report.store.databaseBytes + report.store.blobFileBytes);
    expect(report.store.blobFileBytes).toBeGreaterThan(0);
    const encodings = Object.values(report.blobs.byEncoding) as Array<{ count: number; rawBytes: number; storedBytes: number }>;
    expect(encodings.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(report.blobs.count);
    expect(encodings.reduce((sum, bucket) => sum + bucket.storedBytes, 0)).toBe(report.blobs.storedBytes);
    expect(report.sessions).toEqual([expect.objectContaining({ id: fixture.sessionId, kind: 'main', messages: 4, checkpoints: 5, blobs: 7 })]);
    expect(report.savings.copiesBytes).toBeGreaterThan(report.savings.checkpointStoredBytes);
    expect(report.savings.ratio).toBeGreaterThan(1);
  });
});

describe('waypoint: store location, global flags and usage errors (built CLI)', () => {
  let fixture: CliFixture;
  beforeEach(async () => {
    fixture = await createCliFixture();
  });
  afterEach(() => fixture.cleanup());

  it('finds the store by --store (relative to the current directory), else $WAYPOINT_HOME', () => {
    const byHome = fixture.cli('sessions', '--json');
    expect(byHome.json().sessions).toHaveLength(1);
    const relative = runCli(['sessions', '--store', 'home/waypoint.db', '--json'], { home: join(fixture.dir, 'elsewhere'), cwd: fixture.dir });
    expect(relative.code).toBe(0);
    expect(relative.json().store).toBe(fixture.storePath);
  });

  it('a missing store is STORE_NOT_FOUND (exit 5) and is not created', () => {
    const path = join(fixture.dir, 'nowhere', 'w.db');
    const run = runCli(['log', fixture.sessionId, '--store', path, '--json'], { home: fixture.home });
    expect(run.code).toBe(5);
    expect(run.json().error).toMatchObject({ code: 'STORE_NOT_FOUND', details: { path } });
    expect(existsSync(join(fixture.dir, 'nowhere'))).toBe(false);
  });

  it('a file that is not a Waypoint store is refused (exit 5) and left byte-identical', () => {
    const path = join(fixture.dir, 'other', 'notes.db');
    mkdirSync(join(fixture.dir, 'other'));
    writeFileSync(path, 'just some notes\n');
    const before = snapshotTree(join(fixture.dir, 'other'));
    const run = runCli(['sessions', '--store', path], { home: fixture.home });
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/^waypoint: /);
    expect(snapshotTree(join(fixture.dir, 'other'))).toEqual(before);
  });

  it('unknown commands and options, missing and extra arguments are usage errors (exit 2)', () => {
    const before = snapshotTree(fixture.dir);
    for (const args of [
      ['bogus'],
      ['--store'],
      ['log'],
      ['log', fixture.sessionId, 'extra'],
      ['checkpoints', fixture.sessionId, '--limit', 'ten'],
      ['sessions', '--verbose'],
      ['gc', '--keep-sessions', '0'],
      ['redo', fixture.sessionId, '--resolve', 'a=merge'],
    ]) {
      const run = fixture.cli(...args, '--json');
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.json().error.code).toBe('USAGE');
    }
    expect(fixture.cli('log').stderr).toBe('waypoint: `waypoint log` needs <session>. Run `waypoint log --help` for usage.\n');
    expect(snapshotTree(fixture.dir)).toEqual(before);
  });

  it('redo with nothing to redo is a conflict (exit 4); an unknown rewind id is not found', () => {
    const nothing = fixture.cli('redo', fixture.sessionId, '--json');
    expect(nothing.code).toBe(4);
    expect(nothing.json().error.code).toBe('NOTHING_TO_REDO');
    const unknown = fixture.cli('redo', fixture.sessionId, 'jnl_00000000000000000000000000', '--json');
    expect(unknown.code).toBe(3);
    expect(unknown.json().error.code).toBe('REWIND_NOT_FOUND');
  });
});
