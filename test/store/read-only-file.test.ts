import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/index.js';

const run = promisify(execFile);
const probe = join(import.meta.dirname, '..', 'fixtures', 'read-only-probe.ts');
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

describe('a store file the user may not write', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-ro-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // Permissions do not bind root, so the probe runs as the unprivileged `nobody` user; without
  // root we cannot switch users and the case cannot be staged.
  async function stage(dirMode: number) {
    chmodSync(dir, dirMode);
    const path = join(dir, 'store.db');
    const store = await SqliteStore.open({ path });
    const session = await store.createSession();
    await store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'kept' }] });
    await store.close();
    chmodSync(path, 0o644);
    return { path, sessionId: session.id };
  }

  async function probeAsNobody(path: string, sessionId: string) {
    try {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', probe, path, sessionId], {
        uid: NOBODY,
        gid: NOBODY,
        cwd: process.cwd(),
        env: { ...process.env, HOME: dir },
      });
      return JSON.parse(stdout) as { readOnly: boolean; messages: number; writeError: { code: string; message: string } };
    } catch (error) {
      return { failed: String((error as { stderr?: string }).stderr ?? error) };
    }
  }

  it.skipIf(!isRoot)('in a shared directory: opens read-only, reads work, a write raises STORE_READ_ONLY with the reason', async () => {
    const { path, sessionId } = await stage(0o1777);
    const result = await probeAsNobody(path, sessionId);
    expect(result).toMatchObject({ readOnly: true, messages: 1, writeError: { code: 'STORE_READ_ONLY' } });
    expect((result as { writeError: { message: string } }).writeError.message).toContain('no write permission');
    const again = await SqliteStore.open({ path });
    expect(await again.history(sessionId)).toHaveLength(1);
    await again.close();
  });

  it.skipIf(!isRoot)('in a directory it may not write: refused at open with STORE_READ_ONLY saying what to do', async () => {
    const { path, sessionId } = await stage(0o755);
    const result = await probeAsNobody(path, sessionId);
    expect(result).toHaveProperty('failed');
    expect((result as { failed: string }).failed).toContain('STORE_READ_ONLY');
    expect((result as { failed: string }).failed).toContain('Ask the owner for write access');
  });
});
