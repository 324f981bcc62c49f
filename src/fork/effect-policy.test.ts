import { describe, expect, it } from 'vitest';
import { effectPolicyFor } from './effect-policy.js';

describe('effectPolicyFor', () => {
  it('runs external tools in a main session and asks in forks and side chats by default', () => {
    expect(effectPolicyFor({ kind: 'main', metadata: {} })).toBe('run');
    expect(effectPolicyFor({ kind: 'fork', metadata: {} })).toBe('ask');
    expect(effectPolicyFor({ kind: 'side_chat', metadata: {} })).toBe('ask');
  });

  it("is configurable per kind, and a session's own choice wins; bad values are refused", () => {
    expect(effectPolicyFor({ kind: 'fork', metadata: {} }, { byKind: { fork: 'dry-run' } })).toBe('dry-run');
    expect(effectPolicyFor({ kind: 'fork', metadata: { effectPolicy: 'run' } }, { byKind: { fork: 'dry-run' } })).toBe('run');
    expect(() => effectPolicyFor({ kind: 'fork', metadata: { effectPolicy: 'yolo' } })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
