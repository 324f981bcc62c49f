import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/index.js';

const writer = join(import.meta.dirname, '..', 'fixtures', 'append-forever.ts');

function killWhileWriting(path: string, sessionId: string, delayMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writer, path, sessionId], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', () => setTimeout(() => child.kill('SIGKILL'), delayMs));
    child.once('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited without being killed (${signal})`))));
  });
}

describe('a writer killed with SIGKILL mid-append', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-crash-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves a consistent store: every committed message on one chain, no dangling references', async () => {
    const path = join(dir, 'store.db');
    const store = await SqliteStore.open({ path });
    const session = await store.createSession();
    await store.close();
    let previous = 0;
    for (let trial = 0; trial < 6; trial++) {
      await killWhileWriting(path, session.id, Math.floor(Math.random() * 40));
      const reopened = await SqliteStore.open({ path });
      const history = await reopened.history(session.id, { parts: 'none' });
      expect(history.length).toBeGreaterThan(previous);
      history.forEach((message, index) => {
        expect(message.depth).toBe(index);
        expect(message.parentId).toBe(index === 0 ? null : history[index - 1]!.id);
        expect(message.parts).toHaveLength(1);
      });
      previous = history.length;
      await reopened.close();
      const db = new Database(path, { readonly: true });
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('foreign_key_check')).toEqual([]);
      db.close();
    }
  });
});
