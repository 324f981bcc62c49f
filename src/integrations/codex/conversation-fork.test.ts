import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../engine/index.js';
import { waypointSessionIdFor } from '../claude/claude-ids.js';
import { cutRollout, forkCodexConversation } from './conversation-fork.js';
import { handleCodexHook } from './hook-handler.js';

const S = '01a234cd-f659-78e0-857d-b38af8960614';

/** A rollout as Codex 0.171 writes it (the lines' kinds and the fields that name the session and the turns). */
function rolloutLines(): string[] {
  const line = (value: unknown) => JSON.stringify(value);
  const turn = (id: string, prompt: string, reply: string) => [
    line({ type: 'event_msg', payload: { type: 'task_started', turn_attribution: { turn_id: id } } }),
    line({ type: 'turn_context', payload: { turn_id: id, cwd: '/p' } }),
    line({
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }], internal_chat_message_metadata_passthrough: { turn_id: id } },
    }),
    line({ type: 'event_msg', payload: { type: 'item_completed', thread_id: S, turn_id: id } }),
    line({
      type: 'response_item',
      payload: {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: reply }],
        internal_chat_message_metadata_passthrough: { turn_id: id },
      },
    }),
  ];
  return [
    line({ type: 'session_meta', payload: { id: S, session_id: S, cwd: '/p', note: `a path naming it: /x/rollout-${S}.jsonl` } }),
    ...turn('t1', 'first', 'one'),
    ...turn('t2', 'second', 'two'),
    ...turn('t3', 'third', 'three'),
  ];
}

describe("a Codex session's conversation cut before a prompt, for `codex resume`", () => {
  let dir: string;
  let rollout: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-codex-fork-'));
    mkdirSync(join(dir, 'sessions'));
    rollout = join(dir, 'sessions', `rollout-2026-12-02T10-00-00-${S}.jsonl`);
    writeFileSync(rollout, `${rolloutLines().join('\n')}\n`, { mode: 0o600 });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the lines before the turn began, under a new time-ordered id wherever the old one is a whole value, beside the original, which is left alone', () => {
    const before = readFileSync(rollout);
    const fork = cutRollout(rollout, S, 't2');
    expect(fork.parentCodexSessionId).toBe(S);
    expect(fork.codexSessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(fork.rolloutPath).toBe(join(dir, 'sessions', `rollout-2026-12-02T10-00-00-${fork.codexSessionId}.jsonl`));
    const expected = rolloutLines()
      .slice(0, 6)
      .map((line) => line.split(JSON.stringify(S)).join(JSON.stringify(fork.codexSessionId)));
    expect(readFileSync(fork.rolloutPath, 'utf8')).toBe(`${expected.join('\n')}\n`);
    // Inside a longer text the old id stays (it is no reference to the session).
    expect(readFileSync(fork.rolloutPath, 'utf8')).toContain(`/x/rollout-${S}.jsonl`);
    expect(statSync(fork.rolloutPath).mode & 0o777).toBe(0o600);
    expect(readFileSync(rollout).equals(before)).toBe(true);
    expect(cutRollout(rollout, S, 't3').codexSessionId).not.toBe(fork.codexSessionId);
  });

  it('refuses a turn the rollout does not hold, another session, and a rollout that is gone; before the first prompt only the header is kept', () => {
    expect(() => cutRollout(rollout, S, 't9')).toThrow(expect.objectContaining({ code: 'CODEX_PROMPT_NOT_FOUND' }));
    expect(() => cutRollout(rollout, 'another-session', 't2')).toThrow(expect.objectContaining({ code: 'CODEX_ROLLOUT_UNREADABLE' }));
    expect(() => cutRollout(join(dir, 'gone.jsonl'), S, 't2')).toThrow(expect.objectContaining({ code: 'CODEX_ROLLOUT_UNREADABLE' }));
    const cutAtFirst = cutRollout(rollout, S, 't1');
    expect(readFileSync(cutAtFirst.rolloutPath, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('finds the rollout and the Codex turn from what the hooks recorded, and refuses what is no Codex prompt', async () => {
    const storePath = join(dir, 'home', 'waypoint.db');
    const send = (hook_event_name: string, extra: Record<string, unknown>) =>
      handleCodexHook({ session_id: S, cwd: dir, hook_event_name, transcript_path: rollout, ...extra }, { storePath });
    await send('UserPromptSubmit', { turn_id: 't1', prompt: 'first' });
    await send('Stop', { turn_id: 't1', last_assistant_message: 'one' });
    await send('UserPromptSubmit', { turn_id: 't2', prompt: 'second' });
    await send('Stop', { turn_id: 't2', last_assistant_message: 'two' });
    const waypoint = await openWaypoint({ path: storePath });
    try {
      const sessionId = waypointSessionIdFor(S);
      const history = await waypoint.store.history(sessionId);
      const second = history.find(
        (message) => message.role === 'user' && message.parts[0]?.content?.type === 'text' && message.parts[0].content.text === 'second',
      );
      const fork = await forkCodexConversation(waypoint, sessionId, second!.id);
      expect(readFileSync(fork.rolloutPath, 'utf8').trim().split('\n')).toHaveLength(6);
      const reply = history.find((message) => message.role === 'assistant');
      await expect(forkCodexConversation(waypoint, sessionId, reply!.id)).rejects.toMatchObject({ code: 'CODEX_PROMPT_NOT_FOUND' });
      await expect(forkCodexConversation(waypoint, sessionId, 'msg_none')).rejects.toMatchObject({ code: 'CODEX_PROMPT_NOT_FOUND' });
      const other = await waypoint.store.createSession({ title: 'not Codex' });
      await expect(forkCodexConversation(waypoint, other.id, second!.id)).rejects.toMatchObject({ code: 'CODEX_SESSION_REQUIRED' });
    } finally {
      await waypoint.close();
    }
  });
});
