import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { forkSession, redo, rewind } from '../../src/operations/index.js';
import { createCliFixture, type CliFixture } from '../cli/cli-harness.js';
import { snapshotTree } from '../fixtures/snapshot-tree.js';
import { cli, editExportLines, familySnapshot, sessionIds } from './transfer-harness.js';

// Each case runs the CLI from source several times: minutes on a loaded box.
describe('waypoint export / import through a portable file (SQLite → file → SQLite)', { timeout: 600_000 }, () => {
  let fixture: CliFixture;
  let exported: string;
  let target: string;
  beforeEach(async () => {
    fixture = await createCliFixture();
    exported = join(fixture.dir, 'handoff.wpx');
    target = join(fixture.dir, 'machine-b', 'waypoint.db');
    // A fork and a side chat, so the family is more than one session.
    const waypoint = await openWaypoint({ path: fixture.storePath });
    try {
      await forkSession({ waypoint }, { from: 'side-chat', sessionId: fixture.sessionId });
    } finally {
      await waypoint.close();
    }
  });
  afterEach(() => fixture.cleanup());

  it('copies every record and blob, ids kept; a second import changes nothing and says so', async () => {
    const exportRun = cli(['export', '--store', fixture.storePath, fixture.sessionId, '--family', '--to', exported, '--json']);
    expect(exportRun.code, exportRun.stderr).toBe(0);
    expect(exportRun.json()).toMatchObject({ to: 'file', path: exported, family: true, counts: { sessions: 2, checkpoints: 5 } });
    expect(exportRun.json().bytes).toBe(statSync(exported).size);

    const first = cli(['import', '--store', target, exported, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const report = first.json();
    expect(report).toMatchObject({ alreadyImported: false, sessionId: fixture.sessionId, records: { inserted: { sessions: 2, checkpoints: 5, turns: 2 } } });
    expect(report.blobs.stored).toBeGreaterThan(0);
    const source = await familySnapshot(fixture.storePath, fixture.sessionId);
    expect(await familySnapshot(target, fixture.sessionId)).toEqual(source);

    const before = snapshotTree(join(fixture.dir, 'machine-b'));
    const again = cli(['import', '--store', target, exported, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json()).toMatchObject({ alreadyImported: true, records: { inserted: { sessions: 0, messages: 0, checkpoints: 0 } } });
    const text = cli(['import', '--store', target, exported]);
    expect(text.stdout).toContain('Already imported');
    expect(await familySnapshot(target, fixture.sessionId)).toEqual(source);
    expect(Object.keys(snapshotTree(join(fixture.dir, 'machine-b'))).filter((path) => !path.includes('-wal') && !path.includes('-shm'))).toEqual(
      Object.keys(before).filter((path) => !path.includes('-wal') && !path.includes('-shm')),
    );
  });

  it('the imported session forks, rewinds and redoes from its own blobs: an isolated fork matches the source store byte for byte', async () => {
    expect(cli(['export', '--store', fixture.storePath, fixture.sessionId, '--to', exported]).code).toBe(0);
    expect(cli(['import', '--store', target, exported]).code).toBe(0);
    const fromSource = join(fixture.dir, 'fork-a');
    const fromCopy = join(fixture.dir, 'fork-b');
    for (const [store, dir] of [
      [fixture.storePath, fromSource],
      [target, fromCopy],
    ] as const) {
      const waypoint = await openWaypoint({ path: store });
      try {
        await forkSession(
          { waypoint },
          { from: 'checkpoint', sessionId: fixture.sessionId, checkpointId: fixture.checkpointIds[0]!, workspace: { mode: 'isolated', dir } },
        );
      } finally {
        await waypoint.close();
      }
    }
    const tree = snapshotTree(fromCopy);
    expect(tree).toEqual(snapshotTree(fromSource));
    // At the first checkpoint: the parser edit and everything after it undone.
    expect(readFileSync(join(fromCopy, 'src', 'parser.js'), 'utf8')).not.toContain('filter');
    expect(existsSync(join(fromCopy, 'assets', 'logo.bin'))).toBe(false);

    const waypoint = await openWaypoint({ path: target });
    try {
      const undone = await rewind({ waypoint }, { kind: 'checkpoint', sessionId: fixture.sessionId, checkpointId: fixture.checkpointIds[1]! });
      expect(existsSync(join(fixture.project, 'assets', 'logo.bin'))).toBe(false);
      expect(undone.files?.rewindId).toBeTruthy();
      await redo({ waypoint }, { sessionId: fixture.sessionId, rewindId: undone.files!.rewindId! });
      expect(readFileSync(join(fixture.project, 'assets', 'logo.bin'))).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0xff]));
    } finally {
      await waypoint.close();
    }
  });

  it('a record that differs from the target under the same id refuses the import (IMPORT_CONFLICT) and changes nothing', async () => {
    expect(cli(['export', '--store', fixture.storePath, fixture.sessionId, '--to', exported]).code).toBe(0);
    expect(cli(['import', '--store', target, exported]).code).toBe(0);
    // The copy goes on on machine B: its session row (head) now differs from the file's.
    const waypoint = await openWaypoint({ path: target });
    try {
      await waypoint.history.append(fixture.sessionId, { role: 'user', parts: [{ type: 'text', text: 'continued on B' }] });
    } finally {
      await waypoint.close();
    }
    const before = await familySnapshot(target, fixture.sessionId);
    const refused = cli(['import', '--store', target, exported, '--json']);
    expect(refused.code).toBe(4);
    expect(refused.json().error).toMatchObject({ code: 'IMPORT_CONFLICT', details: { kind: 'sessions', id: fixture.sessionId } });
    expect(await familySnapshot(target, fixture.sessionId)).toEqual(before);
  });

  it('a damaged or cut-off file is refused with a typed error and imports nothing', async () => {
    expect(cli(['export', '--store', fixture.storePath, fixture.sessionId, '--to', exported]).code).toBe(0);
    const bytes = readFileSync(exported);
    const cut = join(fixture.dir, 'cut.wpx');
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const truncated = cli(['import', '--store', target, cut, '--json']);
    expect(truncated.code).toBe(6);
    expect(truncated.json().error.code).toBe('EXPORT_FILE_TRUNCATED');

    const tampered = join(fixture.dir, 'tampered.wpx');
    writeFileSync(tampered, bytes);
    editExportLines(tampered, (lines) =>
      lines.map((line) => {
        if (!line.startsWith('{"t":"blob"')) return line;
        const frame = JSON.parse(line);
        const content = Buffer.from(frame.data, 'base64');
        content[0] = content[0]! ^ 0xff;
        return JSON.stringify({ ...frame, data: content.toString('base64') });
      }),
    );
    const corrupt = cli(['import', '--store', target, tampered, '--json']);
    expect(corrupt.code).toBe(6);
    expect(corrupt.json().error).toMatchObject({ code: 'EXPORT_FILE_CORRUPT' });
    expect(corrupt.json().error.message).toContain('does not match its hash');

    const dropped = join(fixture.dir, 'dropped.wpx');
    writeFileSync(dropped, bytes);
    editExportLines(dropped, (lines) => lines.filter((line) => !line.startsWith('{"t":"turn"')));
    expect(cli(['import', '--store', target, dropped, '--json']).json().error.code).toBe('EXPORT_FILE_CORRUPT');

    const notExport = join(fixture.dir, 'notes.txt');
    writeFileSync(notExport, 'hello\n');
    expect(cli(['import', '--store', target, notExport, '--json']).json().error.code).toBe('EXPORT_FILE_CORRUPT');
    expect(await sessionIds(target)).toEqual([]);
  });

  it('imports straight from another store, opened read-only: its files are left as they were; a missing source is refused, not created', async () => {
    const storeFiles = () =>
      Object.fromEntries(Object.entries(snapshotTree(join(fixture.storePath, '..'))).filter(([path]) => !path.endsWith('-shm') && !path.includes('.lock')));
    const before = storeFiles();
    const run = cli(['import', '--store', target, fixture.storePath, '--session', fixture.sessionId, '--family', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ alreadyImported: false, sessionId: fixture.sessionId });
    expect(await familySnapshot(target, fixture.sessionId)).toEqual(await familySnapshot(fixture.storePath, fixture.sessionId));
    expect(storeFiles()).toEqual(before);

    const missing = join(fixture.dir, 'elsewhere', 'gone.db');
    const refused = cli(['import', '--store', target, missing, '--session', fixture.sessionId, '--json']);
    expect(refused.code).toBe(3);
    expect(refused.json().error).toMatchObject({ code: 'IMPORT_SOURCE_NOT_FOUND', details: { location: missing } });
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(join(fixture.dir, 'elsewhere'))).toBe(false);
  });
});
