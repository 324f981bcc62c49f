import { openWaypoint } from '../../src/engine/index.js';

export interface SeededTurn {
  inputId: string;
  replyId: string;
  text: string;
}

/**
 * Records a conversation straight into the store, before `waypoint serve` opens it: `inputs` user
 * inputs each answered by one reply; a compaction summary covering everything up to the reply of
 * input `compactAfter` (1-based); a hook injection (model-only) and a task notification after the
 * first input. Returns the session and its turns, oldest first.
 */
export async function seedConversation(
  storePath: string,
  options: { title: string; workdir: string; inputs: number; compactAfter?: number; noise?: boolean },
): Promise<{ sessionId: string; turns: SeededTurn[]; summaryId: string | null }> {
  const waypoint = await openWaypoint({ path: storePath });
  try {
    const session = await waypoint.history.createSession({ title: options.title, workdir: options.workdir });
    const turns: SeededTurn[] = [];
    let summaryId: string | null = null;
    for (let index = 1; index <= options.inputs; index++) {
      const text = `question ${index}: ${index % 3 === 0 ? 'a longer input that goes on for a while, with a second sentence to make it wrap' : 'short'}`;
      const input = await waypoint.history.append(session.id, { role: 'user', parts: [{ type: 'text', text }] });
      const turn = await waypoint.store.createTurn({ sessionId: session.id, userMessageId: input.id });
      const reply = await waypoint.history.append(session.id, { role: 'assistant', turnId: turn.id, parts: [{ type: 'text', text: `answer ${index}` }] });
      await waypoint.store.updateTurn(turn.id, { status: 'complete', endedAt: Date.now() });
      turns.push({ inputId: input.id, replyId: reply.id, text });
      if (options.noise && index === 1) {
        await waypoint.store.appendMessage({
          sessionId: session.id,
          role: 'user',
          kind: 'meta',
          parts: [{ type: 'text', text: 'hook injection' }],
          metadata: { visibility: 'model' },
        });
        await waypoint.store.appendMessage({
          sessionId: session.id,
          role: 'user',
          kind: 'task_notification',
          parts: [{ type: 'text', text: 'background task finished' }],
        });
      }
      if (options.compactAfter === index) {
        const { message } = await waypoint.store.appendMessage({
          sessionId: session.id,
          role: 'user',
          kind: 'summary',
          parts: [{ type: 'text', text: `summary of the first ${index} questions` }],
          metadata: { covers: { to: reply.id } },
        });
        summaryId = message.id;
      }
    }
    return { sessionId: session.id, turns, summaryId };
  } finally {
    await waypoint.close();
  }
}

/** An empty session (no message yet). */
export async function seedEmpty(storePath: string, workdir: string, title: string): Promise<string> {
  const waypoint = await openWaypoint({ path: storePath });
  try {
    return (await waypoint.history.createSession({ title, workdir })).id;
  } finally {
    await waypoint.close();
  }
}
