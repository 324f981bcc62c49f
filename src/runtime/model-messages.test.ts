import { describe, expect, it } from 'vitest';
import type { MessageWithParts, PartContent } from '../model/index.js';
import { toModelMessages } from './model-messages.js';

let seq = 0;
function message(role: MessageWithParts['role'], parts: PartContent[], extra: Partial<MessageWithParts> = {}): MessageWithParts {
  seq++;
  return {
    id: `msg_${seq}`,
    treeId: 't',
    parentId: null,
    sessionId: 's',
    role,
    kind: 'reply',
    status: 'complete',
    turnId: null,
    depth: seq,
    metadata: {},
    createdAt: 0,
    parts: parts.map((content, index) => ({ index, type: content.type, size: 0, content })),
    ...extra,
  };
}

describe('toModelMessages', () => {
  it('passes AI SDK shaped parts through, leaves person-only messages out, and sends later system text as user text', () => {
    const messages = toModelMessages([
      message('user', [{ type: 'text', text: 'hi' }], { kind: 'input' }),
      message('assistant', [
        { type: 'reasoning', text: 'hmm' },
        { type: 'text', text: 'ok' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a' } },
      ]),
      message('tool', [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'error-text', value: 'missing' } }]),
      message('system', [{ type: 'text', text: 'Forked from "x"' }], { metadata: { visibility: 'ui' } }),
      message('system', [{ type: 'text', text: 'a note' }]),
      message('assistant', [], { status: 'error' }),
    ]);
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'hmm' },
          { type: 'text', text: 'ok' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a' } },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'error-text', value: 'missing' } }] },
      { role: 'user', content: [{ type: 'text', text: 'a note' }] },
    ]);
  });
});
