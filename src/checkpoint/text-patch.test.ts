import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyPatch } from 'diff';
import { countLineChanges, isBinaryContent, unifiedPatch } from './text-patch.js';

describe('text patches', () => {
  it('a patch always applies to the before text and gives the after text, minimal or whole-file', () => {
    const line = fc.stringMatching(/^[a-z ]{0,6}$/);
    const text = fc.array(line, { maxLength: 400 }).chain((lines) => fc.boolean().map((newline) => lines.join('\n') + (newline && lines.length ? '\n' : '')));
    fc.assert(
      fc.property(text, text, (before, after) => {
        const patch = unifiedPatch('f.txt', Buffer.from(before), Buffer.from(after));
        expect(applyPatch(before, patch!)).toBe(after);
      }),
      { numRuns: 150 },
    );
  });

  it('a complete rewrite of a large file falls back to a whole-file patch that still applies', () => {
    const before = Array.from({ length: 2000 }, (_, index) => `old ${index}`).join('\n') + '\n';
    const after = Array.from({ length: 300 }, (_, index) => `new ${index}`).join('\n');
    const patch = unifiedPatch('f.txt', Buffer.from(before), Buffer.from(after))!;
    expect(patch).toContain('@@ -1,2000 +1,300 @@');
    expect(applyPatch(before, patch)).toBe(after);
    expect(countLineChanges(Buffer.from(before), Buffer.from(after))).toEqual({ added: 300, removed: 2000 });
  });

  it('binary content (NUL or invalid UTF-8) has no patch and no line counts', () => {
    expect(isBinaryContent(Buffer.from([0x41, 0, 0x42]))).toBe(true);
    expect(isBinaryContent(Buffer.from([0xff, 0xfe, 0x41]))).toBe(true);
    expect(isBinaryContent(Buffer.from('héllo'))).toBe(false);
    expect(unifiedPatch('x', Buffer.from('a'), Buffer.from([0, 1]))).toBeNull();
    expect(countLineChanges(null, Buffer.from([0, 1]))).toBeNull();
  });
});
