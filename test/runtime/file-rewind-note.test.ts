import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listRewindTargets, uiView } from '../../src/history/index.js';
import { rewindConversation } from '../../src/rewind/index.js';
import { FILE_REWIND_NOTE } from '../../src/runtime/index.js';
import { runtimeFixture, type RuntimeFixture } from './runtime-fixture.js';

let fixture: RuntimeFixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

const NOTE = 'Note from Waypoint: the person rewound files';

/** The text of every message of the model's `call`-th request (0-based). */
function promptOf(fixture: RuntimeFixture, call: number): string {
  return JSON.stringify(fixture.model.calls[call]);
}

function notesIn(fixture: RuntimeFixture, call: number): number {
  return promptOf(fixture, call).split(NOTE).length - 1;
}

/** Turn 1 changes a.txt (v0 → v1) and creates new.txt; later turns only answer. */
async function afterFirstTurn(laterTurns: number) {
  const steps: unknown[] = [
    {
      toolCalls: [
        { toolName: 'write', input: { path: 'a.txt', content: 'v1\n' } },
        { toolName: 'write', input: { path: 'new.txt', content: 'fresh\n' } },
      ],
    },
    { text: 'Wrote both.' },
  ];
  for (let index = 0; index < laterTurns; index++) steps.push({ text: `Answer ${index + 2}.` });
  const created = await runtimeFixture(steps);
  fixture = created;
  writeFileSync(join(created.workdir, 'a.txt'), 'v0\n');
  const session = await created.runtime.startSession({ workdir: created.workdir });
  const first = await created.runtime.runTurn(session.id, 'Write the files');
  return { fixture: created, sessionId: session.id, inputId: first.turn.userMessageId };
}

describe('after a files-only rewind the next model call is told, once, and the person does not see it', () => {
  it('a code rewind through the runtime: the next request names each file and what it is now', async () => {
    const { fixture, sessionId, inputId } = await afterFirstTurn(2);
    await fixture.runtime.rewind({ sessionId, messageId: inputId, scope: 'workspace', cascade: true });
    expect(readFileSync(join(fixture.workdir, 'a.txt'), 'utf8')).toBe('v0\n');
    expect(existsSync(join(fixture.workdir, 'new.txt'))).toBe(false);

    await fixture.runtime.runTurn(sessionId, 'What is in a.txt?');
    const prompt = promptOf(fixture, 2);
    expect(prompt).toContain(NOTE);
    expect(prompt).toContain('- a.txt: restored to an earlier version');
    expect(prompt).toContain('- new.txt: deleted');
    expect(prompt).toContain('Read a file again before editing it');
    // Before the first turn's files were rewound, no request carried one.
    expect(notesIn(fixture, 0) + notesIn(fixture, 1)).toBe(0);

    // Kept in the session for the model only: not in the person's view, not a rewind target.
    const path = await fixture.waypoint.store.history(sessionId);
    const notes = path.filter((message) => message.metadata.note === FILE_REWIND_NOTE);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ role: 'user', kind: 'meta', metadata: { visibility: 'model' } });
    expect(uiView(path).map((message) => message.id)).not.toContain(notes[0]!.id);
    expect((await listRewindTargets(fixture.waypoint.store, sessionId)).map((target) => target.messageId)).not.toContain(notes[0]!.id);

    // Told once: the next turn's request still holds that one note, and no second.
    await fixture.runtime.runTurn(sessionId, 'Thanks');
    expect(notesIn(fixture, 3)).toBe(1);
  });

  it('a direct checkpoint rewind through the engine, then its redo: told that it was restored, then that it changed again', async () => {
    const { fixture, sessionId } = await afterFirstTurn(2);
    // The engine's own file rewinder, as the chat or another library caller would use it (not the runtime).
    const rewind = await fixture.waypoint.files.restoreLatest(sessionId);
    expect(rewind.files.map((file) => file.path)).toEqual(['workspace:new.txt']);
    await fixture.runtime.runTurn(sessionId, 'Go on');
    expect(promptOf(fixture, 2)).toContain('- new.txt: deleted');
    expect(promptOf(fixture, 2)).not.toContain('a.txt:');

    await fixture.waypoint.files.redo(sessionId, rewind.rewindId!);
    expect(readFileSync(join(fixture.workdir, 'new.txt'), 'utf8')).toBe('fresh\n');
    await fixture.runtime.runTurn(sessionId, 'And now?');
    expect(notesIn(fixture, 3)).toBe(2);
    expect(promptOf(fixture, 3)).toContain('- new.txt: recreated');
  });

  it('a both-scope rewind moves the conversation back with the files: no note', async () => {
    const { fixture, sessionId, inputId } = await afterFirstTurn(1);
    await fixture.runtime.rewind({ sessionId, messageId: inputId, scope: 'both' });
    expect(existsSync(join(fixture.workdir, 'new.txt'))).toBe(false);
    await fixture.runtime.runTurn(sessionId, 'Start over');
    expect(notesIn(fixture, 2)).toBe(0);
    expect((await fixture.waypoint.store.history(sessionId)).filter((message) => message.metadata.note === FILE_REWIND_NOTE)).toEqual([]);
  });

  it('a branch whose note a conversation rewind cut off is told again', async () => {
    const { fixture, sessionId, inputId } = await afterFirstTurn(2);
    await fixture.runtime.rewind({ sessionId, messageId: inputId, scope: 'workspace', cascade: true });
    const second = await fixture.runtime.runTurn(sessionId, 'Second');
    expect(notesIn(fixture, 2)).toBe(1);
    // Back before the second turn: its note is off the path, and the files are still rewound.
    await rewindConversation(fixture.waypoint.store, { sessionId, messageId: second.turn.userMessageId });
    await fixture.runtime.runTurn(sessionId, 'Second, again');
    expect(notesIn(fixture, 3)).toBe(1);
    expect(promptOf(fixture, 3)).toContain('- a.txt: restored to an earlier version');
  });

  it('a rewind redone before the model looked again changed nothing it knows: no note', async () => {
    const { fixture, sessionId } = await afterFirstTurn(1);
    const rewind = await fixture.waypoint.files.restoreLatest(sessionId);
    await fixture.waypoint.files.redo(sessionId, rewind.rewindId!);
    await fixture.runtime.runTurn(sessionId, 'Go on');
    expect(notesIn(fixture, 2)).toBe(0);
  });
});
