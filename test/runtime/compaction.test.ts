import { afterEach, describe, expect, it } from 'vitest';
import { listRewindTargets, modelView } from '../../src/history/index.js';
import { toModelMessages } from '../../src/runtime/index.js';
import { runtimeFixture, type RuntimeFixture } from './runtime-fixture.js';

const LONG = 'x'.repeat(4000);

describe('conversation compaction', () => {
  let fx: RuntimeFixture;
  afterEach(() => fx.close());

  it('/compact: the model is sent the summary and what follows; the person still sees everything; a rewind before it undoes it', async () => {
    fx = await runtimeFixture([
      { text: `First answer ${LONG}` },
      { text: 'Second answer.' },
      { text: 'SUMMARY: the person asked twice; nothing open.' },
      { text: 'Third answer.' },
    ]);
    const session = await fx.runtime.startSession({ workdir: fx.workdir });
    await fx.runtime.runTurn(session.id, 'first question');
    await fx.runtime.runTurn(session.id, 'second question');
    const before = await fx.waypoint.store.history(session.id);
    const result = await fx.runtime.compact(session.id, { instructions: 'mention the questions' });
    expect(result.trigger).toBe('manual');
    expect(result.coversTo).toBe(before.at(-1)!.id);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore / 10);
    // The model was asked to summarize what it is sent, with the extra instructions.
    const prompt = JSON.stringify(fx.model.calls[2]);
    expect(prompt).toContain('first question');
    expect(prompt).toContain('mention the questions');

    await fx.runtime.runTurn(session.id, 'third question');
    const sent = JSON.stringify(fx.model.calls[3]);
    expect(sent).toContain('SUMMARY: the person asked twice');
    expect(sent).not.toContain('first question');
    expect(sent).toContain('third question');
    const path = await fx.waypoint.store.history(session.id);
    expect(path.length).toBe(before.length + 3);
    expect(modelView(path).map((message) => message.kind)).toEqual(['summary', 'input', 'reply']);

    // Every input is still a rewind target; rewinding to "second question" cuts the summary off.
    const targets = await listRewindTargets(fx.waypoint.store, session.id);
    expect(targets.map((target) => target.text)).toEqual(['first question', 'second question', 'third question']);
    await fx.runtime.rewind({ sessionId: session.id, messageId: targets[1]!.messageId, scope: 'conversation' });
    const rewound = toModelMessages(await fx.waypoint.store.history(session.id));
    expect(JSON.stringify(rewound)).toContain('first question');
    expect(JSON.stringify(rewound)).not.toContain('SUMMARY');
  });

  it('compacts on its own before a turn that would go over the context window, and says so', async () => {
    fx = await runtimeFixture([{ text: `Long answer ${LONG}` }, { text: 'SUMMARY: one long answer.' }, { text: 'Short answer.' }], {
      autoCompact: { contextTokens: 1200, threshold: 0.8 },
    });
    const compactions: unknown[] = [];
    fx.runtime.events.on('conversation-compact', (event) => compactions.push(event));
    const session = await fx.runtime.startSession({ workdir: fx.workdir });
    await fx.runtime.runTurn(session.id, 'tell me a lot');
    expect(compactions).toHaveLength(0);
    const turn = await fx.runtime.runTurn(session.id, 'and now?');
    expect(turn.text).toBe('Short answer.');
    expect(compactions).toHaveLength(1);
    expect(compactions[0]).toMatchObject({ sessionId: session.id, error: null, result: { trigger: 'auto' } });
    expect(JSON.stringify(fx.model.calls[2])).not.toContain('Long answer');
    expect(JSON.stringify(fx.model.calls[2])).toContain('SUMMARY: one long answer.');
  });

  it('refuses with nothing to compact, or an empty summary, and changes nothing', async () => {
    fx = await runtimeFixture([{ text: 'Answer.' }, { reasoning: 'Nothing to say.' }]);
    const session = await fx.runtime.startSession({ workdir: fx.workdir });
    await expect(fx.runtime.compact(session.id)).rejects.toMatchObject({ code: 'NOTHING_TO_COMPACT' });
    await fx.runtime.runTurn(session.id, 'hello');
    const before = await fx.waypoint.store.history(session.id);
    await expect(fx.runtime.compact(session.id)).rejects.toMatchObject({ code: 'COMPACTION_EMPTY' });
    expect((await fx.waypoint.store.history(session.id)).map((message) => message.id)).toEqual(before.map((message) => message.id));
  });
});
