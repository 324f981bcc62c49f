import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore } from '../../src/blobs/index.js';
import { applyToolWrite, openCaptureContext } from '../../src/checkpoint/index.js';
import { defaultStorePath, openWaypoint } from '../../src/engine/index.js';
import { SqliteStore } from '../../src/store/index.js';

const run = promisify(execFile);
const child = join(import.meta.dirname, '..', 'fixtures', 'engine-crash-child.ts');

describe('openWaypoint', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-engine-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('rolls back a file rewind whose process was killed mid-way before anything else runs', async () => {
    const workdir = join(dir, 'project');
    mkdirSync(workdir);
    const path = join(dir, 'store', 'w.db');
    const store = await SqliteStore.open({ path });
    const blobs = new BlobStore(store);
    const session = await store.createSession({ workdir });
    const { message } = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'write two files' }] });
    const turn = await store.createTurn({ sessionId: session.id, userMessageId: message.id });
    const context = await openCaptureContext({ store, blobs, sessionId: session.id, turnId: turn.id });
    await applyToolWrite(context, { path: 'a.txt', content: 'agent a' });
    await applyToolWrite(context, { path: 'b.txt', content: 'agent b' });
    await store.close();

    const killed = await run(process.execPath, ['--import', 'tsx', child, path, session.id, message.id]).then(
      () => null,
      (error: { signal?: string }) => error.signal,
    );
    expect(killed).toBe('SIGKILL');
    const written = ['a.txt', 'b.txt'].filter((name) => {
      try {
        return readFileSync(join(workdir, name), 'utf8') !== `agent ${name[0]}`;
      } catch {
        return true; // deleted by the rewind
      }
    });
    expect(written).toHaveLength(1); // killed after exactly one file

    const waypoint = await openWaypoint({ path });
    expect(waypoint.recovery?.recovered).toHaveLength(1);
    expect(readFileSync(join(workdir, 'a.txt'), 'utf8')).toBe('agent a');
    expect(readFileSync(join(workdir, 'b.txt'), 'utf8')).toBe('agent b');
    expect(await waypoint.store.listJournals({ state: 'pending' })).toEqual([]);
    expect(await waypoint.store.listEntries(session.id, { type: 'file-rewind' })).toEqual([]);
    await waypoint.close();
  });

  it('finds its store in $WAYPOINT_HOME, else ~/.waypoint', () => {
    expect(defaultStorePath({ WAYPOINT_HOME: '/srv/wp' })).toBe('/srv/wp/waypoint.db');
    expect(defaultStorePath({ HOME: '/home/ada' })).toMatch(/\.waypoint\/waypoint\.db$/);
  });
});
