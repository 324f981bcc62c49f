import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SUBAGENT_METADATA } from '../history/index.js';
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
    await store.addCheckpoints([
      { sessionId: main.id, op: 'create', path: 'workspace:a', beforeHash: null, afterHash: null, source: 'tool', status: 'skipped', skipReason: 'too_large' },
    ]);
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
    expect(renderFamilyTree(family, { mark: side.id })).toBe(
      [
        `main  "Fix the parser"  ${main.id}  1 turn, 1 change`,
        `├─ fork  "Fork of Fix the parser"  ${fork.id}  at ${first.id} (#1)  0 turns, 0 changes`,
        `│  └─ side_chat  "Selection side chat"  ${side.id}  at ${first.id} (#1)  0 turns, 0 changes  ← here`,
        `└─ fork  "plan-b"  ${other.id}  at the start  0 turns, 0 changes`,
      ].join('\n'),
    );
  });

  it("shows a subagent's transcript session as a subagent of its parent's turn, not as a fork", async () => {
    const main = await store.createSession({ title: 'Fix the parser' });
    const { message: q1 } = await store.appendMessage({ sessionId: main.id, role: 'user', parts: [{ type: 'text', text: 'q1' }] });
    const turn1 = await store.createTurn({ sessionId: main.id, userMessageId: q1.id });
    const { message: q2 } = await store.appendMessage({ sessionId: main.id, role: 'user', parts: [{ type: 'text', text: 'q2' }] });
    const turn2 = await store.createTurn({ sessionId: main.id, userMessageId: q2.id });
    const subagent = async (parentSessionId: string, parentTurnId: string, toolCallId: string, description: string | null, title: string) => {
      const link = { parentSessionId, parentTurnId, toolCallId, description };
      const { session } = await store.forkSession({
        parentSessionId,
        at: null,
        kind: 'fork',
        title,
        metadata: { [SUBAGENT_METADATA]: link },
        messages: [{ role: 'user', kind: 'input', parts: [{ type: 'text', text: 'task' }] }],
      });
      const turn = await store.createTurn({ sessionId: session.id, userMessageId: session.headMessageId! });
      await store.updateTurn(turn.id, { status: 'complete', endedAt: Date.now() });
      return session;
    };
    const callers = await subagent(main.id, turn2.id, 'call_7', 'find the callers', 'Subagent: find the callers');
    const { session: fork } = await store.forkSession({ parentSessionId: main.id, at: q1.id, kind: 'fork' });
    const untitled = await subagent(main.id, turn1.id, 'call_2', null, 'Subagent: Read the parser and list its entry points');
    const lost = await subagent(fork.id, 'turn_gone', 'call_9', 'in the fork', 'Subagent: in the fork');

    const family = await sessionFamily(store, callers.id);
    expect(family.session.id).toBe(main.id);
    expect(family.subagent).toBeNull();
    const node = family.children.find((child) => child.session.id === callers.id)!;
    expect(node.subagent).toEqual({ parentSessionId: main.id, parentTurnId: turn2.id, toolCallId: 'call_7', description: 'find the callers', turnNumber: 2 });
    expect(node.lastTurnStatus).toBe('complete');
    expect(family.children.find((child) => child.session.id === fork.id)!.subagent).toBeNull();
    expect(renderFamilyTree(family, { mark: callers.id })).toBe(
      [
        `main  "Fix the parser"  ${main.id}  2 turns, 0 changes`,
        `├─ subagent: "find the callers"  ${callers.id}  of turn 2 (${turn2.id}, tool call call_7)  complete  ← here`,
        `├─ fork  "Fork of Fix the parser"  ${fork.id}  at ${q1.id} (#1)  0 turns, 0 changes`,
        `│  └─ subagent: "in the fork"  ${lost.id}  of turn_gone (tool call call_9)  complete`,
        `└─ subagent: "Read the parser and list its entry points"  ${untitled.id}  of turn 1 (${turn1.id}, tool call call_2)  complete`,
      ].join('\n'),
    );
  });
});
