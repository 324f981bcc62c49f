import { expect } from 'vitest';
import type { RecordsImport } from '../record-import.js';
import { expectCode, text } from './conformance-context.js';
import type { ConformanceCase } from './run-store-conformance.js';
import type { Store } from '../store.js';

const hash = (char: string) => char.repeat(64);

/** A session made through the ordinary writes, and its records as an export would read them. */
async function recordedSession(store: Store): Promise<RecordsImport> {
  const session = await store.createSession({ title: 'source', workdir: '/w' });
  const user = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [text('q')] });
  const turn = await store.createTurn({ sessionId: session.id, userMessageId: user.message.id });
  await store.appendMessage({
    sessionId: session.id,
    role: 'assistant',
    parts: [text('a'), { type: 'tool-result', blobHash: hash('c'), n: 1.5 }],
    turnId: turn.id,
  });
  await store.updateTurn(turn.id, { status: 'complete', endedAt: 7 });
  await store.appendEntry(session.id, { type: 'note', data: { z: 1, a: [true, null] } });
  await store.addCheckpoints([{ sessionId: session.id, turnId: turn.id, op: 'create', path: 'a.txt', beforeHash: null, afterHash: hash('a'), source: 'tool' }]);
  await store.appendEffect({ sessionId: session.id, turnId: turn.id, toolName: 'deploy', idempotencyKey: 'k1', status: 'succeeded', request: { x: 1 } });
  return readRecords(store, session.id);
}

async function readRecords(store: Store, sessionId: string): Promise<RecordsImport> {
  const session = await store.getSession(sessionId);
  const tree = await store.listTreeMessages(session.treeId);
  const messages = (await store.getMessages(tree.map((message) => message.id))).map(({ parts, ...message }) => ({
    ...message,
    parts: parts.map((part) => part.content!),
  }));
  return {
    sessions: [session],
    messages,
    entries: await store.listEntries(sessionId),
    turns: await store.listTurns(sessionId),
    checkpoints: await store.listCheckpoints(sessionId),
    effects: await store.listEffects({ sessionId }),
    pins: [],
  };
}

/** The same records under other ids (a session another store recorded). */
function renamed(records: RecordsImport, suffix: string): RecordsImport {
  return JSON.parse(JSON.stringify(records).replace(/"((?:ses|msg|ent|trn|chk|eff|tre)_[A-Za-z0-9]+)"/g, `"$1${suffix}"`)) as RecordsImport;
}

export const importCases: Record<string, ConformanceCase> = {
  async 'an import of records the store already holds writes nothing and counts them existing'(harness) {
    const { store } = harness();
    const records = await recordedSession(store);
    const result = await store.importRecords(records);
    expect(result.inserted).toEqual({ sessions: 0, messages: 0, entries: 0, turns: 0, checkpoints: 0, effects: 0 });
    expect(result.existing).toEqual({ sessions: 1, messages: 2, entries: records.entries.length, turns: 1, checkpoints: 1, effects: 1 });
    expect(await readRecords(store, records.sessions[0]!.id)).toEqual(records);
  },

  async 'imported records keep their ids, places and times, and the session goes on from them'(harness) {
    const { store } = harness();
    const source = await recordedSession(store);
    const records = { ...renamed(source, 'x'), pins: [{ owner: 'session:imported', hashes: [hash('e')] }] };
    expect(records.sessions[0]!.id).not.toBe(source.sessions[0]!.id);
    const checked = await store.importRecords(records, { checkOnly: true });
    expect(checked.inserted.messages).toBe(2);
    expect(await store.findSession(records.sessions[0]!.id)).toBeNull();
    const result = await store.importRecords(records);
    expect(result.inserted).toEqual({ sessions: 1, messages: 2, entries: records.entries.length, turns: 1, checkpoints: 1, effects: 1 });
    const reopened = await harness().reopen();
    const id = records.sessions[0]!.id;
    expect(await readRecords(reopened, id)).toEqual({ ...records, pins: [] });
    expect(await reopened.blobRoots()).toEqual(new Set([hash('a'), hash('c'), hash('e')]));
    const next = await reopened.appendMessage({ sessionId: id, role: 'user', parts: [text('more')] });
    expect(next.message.depth).toBe(2);
    expect((await reopened.history(id)).map((message) => message.id)).toEqual([...records.messages.map((message) => message.id), next.message.id]);
    expect((await reopened.appendEntry(id, { type: 'note', data: {} })).seq).toBe(records.entries.length + 1);
    expect(
      (await reopened.addCheckpoints([{ sessionId: id, op: 'delete', path: 'a.txt', beforeHash: hash('a'), afterHash: null, source: 'fs' }]))[0]!.seq,
    ).toBe(2);
  },

  async 'an import with one record that differs from the store writes none of it'(harness) {
    const { store } = harness();
    const source = await recordedSession(store);
    const fresh = renamed(source, 'y');
    const changed = { ...source.entries[0]!, data: { changed: true } };
    const records: RecordsImport = { ...fresh, entries: [...fresh.entries, changed] };
    const error = await expectCode(store.importRecords(records), 'IMPORT_CONFLICT');
    expect(error.details).toMatchObject({ kind: 'entries', id: changed.id });
    expect(await store.findSession(fresh.sessions[0]!.id)).toBeNull();
    expect(await store.findMessage(fresh.messages[0]!.id)).toBeNull();
    const moved = { ...fresh, entries: [{ ...fresh.entries[0]!, sessionId: source.sessions[0]!.id }] };
    await expectCode(store.importRecords(moved), 'IMPORT_CONFLICT');
    expect(await readRecords(store, source.sessions[0]!.id)).toEqual(source);
  },
};
