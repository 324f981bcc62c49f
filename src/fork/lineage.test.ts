import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../store/index.js';
import { listAncestors, listChildren, renderFamilyTree, sessionFamily } from './lineage.js';

let dir: string;
let store: SqliteStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'waypoint-lineage-'));
  store = await SqliteStore.open({ path: join(dir, 'store', 'w.db') });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('lineage', () => {
  it('lists children and ancestors and renders the family with kinds, titles, branch points, turn and change counts', async () => {
    const main = await store.createSession({ title: 'Fix the parser' });
    const { message: first } = await store.appendMessage({ sessionId: main.id, role: 'user', parts: [{ type: 'text', text: 'q' }] });
    await store.createTurn({ sessionId: main.id, userMessageId: first.id });
    await store.addCheckpoints([{ sessionId: main.id, op: 'create', path: 'workspace:a', beforeHash: null, afterHash: null, source: 'tool', status: 'skipped', skipReason: 'too_large' }]);
    const { session: fork } = await store.forkSession({ parentSessionId: main.id, at: first.id, kind: 'fork' });
    const { session: side } = await store.forkSession({ parentSessionId: fork.id, at: first.id, kind: 'side_chat' });
    const { session: other } = await store.forkSession({ parentSessionId: main.id, at: null, kind: 'fork', title: 'plan-b' });

    expect((await listChildren(store, main.id)).map((session) => session.id)).toEqual([fork.id, other.id]);
    expect((await listAncestors(store, side.id)).map((session) => session.id)).toEqual([fork.id, main.id]);
    expect(await listAncestors(store, main.id)).toEqual([]);

    const family = await sessionFamily(store, side.id);
    expect(family.session.id).toBe(main.id);
    expect(family.children.map((node) => node.session.id)).toEqual([fork.id, other.id]);
    expect(family.children[0]!.children[0]!.session.id).toBe(side.id);
    expect(renderFamilyTree(family, { mark: side.id })).toBe([
      `main  "Fix the parser"  ${main.id}  1 turn, 1 change`,
      `├─ fork  "Fork of Fix the parser"  ${fork.id}  at ${first.id} (#1)  0 turns, 0 changes`,
      `│  └─ side_chat  "Selection side chat"  ${side.id}  at ${first.id} (#1)  0 turns, 0 changes  ← here`,
      `└─ fork  "plan-b"  ${other.id}  at the start  0 turns, 0 changes`,
    ].join('\n'));
  });
});
