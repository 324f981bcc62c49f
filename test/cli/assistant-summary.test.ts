import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { checkStableBoundary } from '../../src/fork/index.js';
import { listRewindTargets, modelView, uiView } from '../../src/history/index.js';
import { WaypointError } from '../../src/model/index.js';
import { rewind } from '../../src/operations/index.js';
import { toModelMessages } from '../../src/runtime/index.js';
import { createCliFixture, type CliFixture } from './cli-harness.js';

const SUMMARY = 'This is a summary of the conversation so far: the parser skips empty lines.';

/**
 * Two copies of the fixture's session, each compacted after its first turn and then given a third
 * turn: one summary recorded as the runtime records it (a user message of kind `summary`), the
 * other as an external caller may (an assistant message of kind `summary`). Every surface must
 * treat them alike.
 */
describe('a summary recorded as an assistant message is a summary everywhere', () => {
  let fixture: CliFixture;
  const sessions: Record<'runtime' | 'assistant', { sessionId: string; summaryId: string }> = {} as never;

  beforeEach(async () => {
    fixture = await createCliFixture();
    const waypoint = await openWaypoint({ path: fixture.storePath });
    try {
      const main = await waypoint.store.getSession(fixture.sessionId);
      for (const role of ['user', 'assistant'] as const) {
        // A fork at the head shares the first two turns; each gets its own summary and third turn.
        const { session } = await waypoint.store.forkSession({ parentSessionId: main.id, at: main.headMessageId!, kind: 'fork' });
        const { message: summary } = await waypoint.store.appendMessage({
          sessionId: session.id,
          role,
          kind: 'summary',
          parts: [{ type: 'text', text: SUMMARY }],
          metadata: { covers: { to: fixture.first.replyId } },
        });
        const input = await waypoint.history.append(session.id, { role: 'user', parts: [{ type: 'text', text: 'And now the tests?' }] });
        const turn = await waypoint.store.createTurn({ sessionId: session.id, userMessageId: input.id });
        await waypoint.history.append(session.id, { role: 'assistant', turnId: turn.id, parts: [{ type: 'text', text: 'They pass.' }] });
        await waypoint.store.updateTurn(turn.id, { status: 'complete', endedAt: Date.now() });
        sessions[role === 'user' ? 'runtime' : 'assistant'] = { sessionId: session.id, summaryId: summary.id };
      }
    } finally {
      await waypoint.close();
    }
  });
  afterEach(() => fixture.cleanup());

  it('rewind list, targets, views and the model messages agree with a runtime summary', async () => {
    const waypoint = await openWaypoint({ path: fixture.storePath });
    try {
      const seen: Record<string, unknown> = {};
      for (const [name, { sessionId, summaryId }] of Object.entries(sessions)) {
        const targets = await listRewindTargets(waypoint.store, sessionId);
        const path = await waypoint.store.history(sessionId);
        const model = toModelMessages(path);
        const refusal = await rewind({ waypoint }, { sessionId, messageId: summaryId, scope: 'conversation' }).catch((error: unknown) => error);
        const stable = await checkStableBoundary(waypoint.store, await waypoint.store.getSession(sessionId), summaryId).catch((error: unknown) => error);
        seen[name] = {
          targets: targets.map((target) => [target.text, target.compacted]),
          model: modelView(path).map((message) => message.kind),
          ui: uiView(path).map((message) => message.kind),
          // The summary goes to the model as user text, first, and the first turn is not sent.
          modelRoles: model.map((message) => message.role),
          firstSent: JSON.stringify(model[0]).includes('summary of the conversation'),
          rewindToSummary: WaypointError.is(refusal) ? refusal.code : 'accepted',
          stableForkAtSummary: WaypointError.is(stable) ? stable.code : 'accepted',
        };
      }
      expect(seen.runtime).toEqual({
        targets: [
          ['Why does the parser choke on empty lines?', true],
          ['Add a test, run it, and document the format.', false],
          ['And now the tests?', false],
        ],
        model: ['summary', 'input', 'reply', 'input', 'reply'],
        ui: ['summary', 'input', 'reply', 'input', 'reply'],
        modelRoles: ['user', 'user', 'assistant', 'user', 'assistant'],
        firstSent: true,
        rewindToSummary: 'REWIND_TARGET_NOT_USER_INPUT',
        stableForkAtSummary: 'NOT_A_STABLE_BOUNDARY',
      });
      expect(seen.assistant).toEqual(seen.runtime);
    } finally {
      await waypoint.close();
    }
  });

  it('the CLI marks it compacted in `rewind status`, shows it as a summary, and refuses to rewind to it', () => {
    const outputs = Object.values(sessions).map(({ sessionId, summaryId }) => {
      const status = fixture.cli('rewind', sessionId, 'status', '--json').json();
      const shown = fixture.cli('show', sessionId, '--json').json();
      const refused = fixture.cli('rewind', sessionId, 'conversation', summaryId, '--json');
      return {
        compacted: status.targets.map((target: { compacted: boolean }) => target.compacted),
        // The whole conversation, the messages the summary stands for marked compacted, then the summary and what followed.
        shownKinds: shown.messages.map((message: { kind: string; compacted?: boolean }) => `${message.kind}${message.compacted ? ' (compacted)' : ''}`),
        refused: [refused.code, refused.json().error.code],
      };
    });
    expect(outputs[0]).toEqual({
      compacted: [true, false, false],
      shownKinds: ['input (compacted)', 'reply (compacted)', 'input', 'reply', 'summary', 'input', 'reply'],
      refused: [2, 'REWIND_TARGET_NOT_USER_INPUT'],
    });
    expect(outputs[1]).toEqual(outputs[0]);
    const text = fixture.cli('show', sessions.assistant.sessionId).stdout;
    expect(text).toMatch(new RegExp(`${sessions.assistant.summaryId}  assistant \\(summary\\)`));
  });
});
