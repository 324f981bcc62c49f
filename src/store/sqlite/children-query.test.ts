import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { CHILDREN_SQL } from './messages.js';
import { SqliteStore } from './sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'waypoint-children-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('children of a message', () => {
  it('are found through the parent_seq index, never a scan of every message, branches included', async () => {
    const path = join(dir, 'w.db');
    const store = await SqliteStore.open({ path });
    const session = await store.createSession({ title: 'children', workdir: dir });
    const text = (value: string) => ({ type: 'text' as const, text: value });
    const first = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [text('q')] });
    const reply = await store.appendMessage({ sessionId: session.id, role: 'assistant', parts: [text('a')] });
    await store.moveHead({ sessionId: session.id, to: first.message.id, reason: 'rewind', bumpGeneration: true });
    const branch = await store.appendMessage({ sessionId: session.id, role: 'assistant', parts: [text('b')] });
    expect((await store.children(first.message.id)).map((child) => child.id)).toEqual([reply.message.id, branch.message.id]);
    expect(await store.children(reply.message.id)).toEqual([]);
    await store.close();

    const db = new Database(path, { readonly: true });
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${CHILDREN_SQL}`).all(1) as Array<{ detail: string }>).map((row) => row.detail).join('; ');
    db.close();
    expect(plan).toContain('USING INDEX messages_parent');
    expect(plan).not.toMatch(/SCAN messages(?! USING)/);
  });
});
