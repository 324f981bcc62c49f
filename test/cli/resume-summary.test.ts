import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatContext } from '../../src/cli/chat/chat-context.js';
import { recentMessages } from '../../src/cli/chat/slash/sessions.js';
import { createStyle } from '../../src/cli/chat/style.js';
import { wrapWidth } from '../../src/cli/render/text-width.js';
import { openWaypoint, type Waypoint } from '../../src/engine/index.js';

describe('a resumed chat shows the compaction summary in full', () => {
  let dir: string;
  let waypoint: Waypoint | null = null;
  afterEach(async () => {
    await waypoint?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('marks the summary and prints every line of it, wrapped to the terminal, while other messages take one line', async () => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-resume-summary-'));
    waypoint = await openWaypoint({ path: join(dir, 'store', 'w.db') });
    const session = await waypoint.history.createSession({ title: 'Summary', workdir: dir });
    const { store } = waypoint;
    const input = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'refactor the parser '.repeat(10) }] });
    await store.appendMessage({ sessionId: session.id, role: 'assistant', parts: [{ type: 'text', text: 'done' }] });
    const head = (await store.getSession(session.id)).headMessageId;
    const summary = [
      'This is a summary of the conversation so far (earlier messages are compacted):',
      '',
      '- The parser now splits on "=" once, so values may contain it.',
      '- Empty lines are skipped; the tests in test/parser.test.js cover both cases and the final open question is the CRLF handling.',
    ].join('\n');
    await store.appendMessage({
      sessionId: session.id,
      role: 'user',
      kind: 'summary',
      parts: [{ type: 'text', text: summary }],
      metadata: { covers: { to: head } },
    });
    const context = { waypoint, io: { style: createStyle(false), columns: 44 } } as unknown as ChatContext;
    const lines = await recentMessages(context, await store.getSession(session.id));

    expect(lines[0]).toMatch(/^› refactor the parser/);
    expect(lines[0]!.length).toBeLessThanOrEqual(44);
    expect(lines[1]).toBe('  done');
    expect(lines[2]).toContain('compacted: summary of 2 earlier messages');
    const shown = lines.slice(3);
    // Every word of the summary is there, in order, and no line is wider than the terminal.
    expect(shown.join(' ').replace(/\s+/g, ' ').trim()).toBe(summary.replace(/\s+/g, ' ').trim());
    expect(shown.every((line) => line.startsWith('  ') && line.length <= 44)).toBe(true);
    expect(shown).toContain('  - The parser now splits on "=" once, so');
    expect(input.message.id).toBeDefined();
  });

  it('wraps by display columns at spaces, breaking a word only when it is wider than the line', () => {
    expect(wrapWidth('中文 字符 abc', 5)).toEqual(['中文', '字符', 'abc']);
    expect(wrapWidth('abcdefgh ij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapWidth('one\n\ntwo', 10)).toEqual(['one', '', 'two']);
  });
});
