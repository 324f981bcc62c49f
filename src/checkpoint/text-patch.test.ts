import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { applyPatch, createTwoFilesPatch, parsePatch, reversePatch } from 'diff';
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
    const before = `${Array.from({ length: 2000 }, (_, index) => `old ${index}`).join('\n')}\n`;
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

/** A generated package-lock-like text: blocks of name, version, resolved URL and integrity hash. */
function lockFile(lines: number, seed: string): string {
  const out: string[] = [];
  for (let index = 0; out.length < lines; index++) {
    const hash = createHash('sha256').update(`${seed}:${index}`).digest('base64');
    out.push(
      `    "node_modules/pkg-${index}": {`,
      `      "version": "1.${index % 13}.${index % 5}",`,
      `      "resolved": "https://registry.example/pkg-${index}/-/pkg-${index}-1.0.0.tgz",`,
      `      "integrity": "sha512-${hash}",`,
      '      "dev": true,',
      '      "license": "MIT"',
      '    },',
    );
  }
  return `${out.slice(0, lines).join('\n')}\n`;
}

/** Rewrites `count` lines spread evenly through the text. */
function changeLines(text: string, count: number, mark: string): string {
  const lines = text.split('\n');
  const total = lines.length - 1;
  for (let index = 0; index < count; index++) {
    const at = Math.floor(((index + 0.5) * total) / count);
    lines[at] = `${lines[at]} ${mark}`;
  }
  return lines.join('\n');
}

function changedLines(patch: string): { added: number; removed: number } {
  const lines = patch.split('\n').filter((line) => !line.startsWith('---') && !line.startsWith('+++'));
  return { added: lines.filter((line) => line.startsWith('+')).length, removed: lines.filter((line) => line.startsWith('-')).length };
}

const applies = (before: string, after: string, patch: string) => {
  expect(applyPatch(before, patch)).toBe(after);
  expect(applyPatch(after, reversePatch(parsePatch(patch)[0]!))).toBe(before);
};

describe('patches that are diffs', () => {
  it('a 175-line change of a 14,087-line lock file is stored as 175/175 lines, not the whole file, and applies both ways', () => {
    const before = lockFile(14_087, 'v1');
    const after = changeLines(before, 175, '# bumped');
    const patch = unifiedPatch('package-lock.json', Buffer.from(before), Buffer.from(after))!;
    expect(changedLines(patch)).toEqual({ added: 175, removed: 175 });
    // As git prints it: 175 hunks of a header, 3 + 3 lines of context and the two changed lines.
    expect(patch.split('\n').length).toBeLessThanOrEqual(175 * 9 + 4);
    applies(before, after, patch);
    expect(countLineChanges(Buffer.from(before), Buffer.from(after))).toEqual({ added: 175, removed: 175 });
  });

  it('a change too long for one shortest-edit search (3,000 lines) is split at unique lines and stays minimal', () => {
    const before = lockFile(14_087, 'v1');
    const after = changeLines(before, 3000, '# bumped');
    const patch = unifiedPatch('package-lock.json', Buffer.from(before), Buffer.from(after))!;
    expect(changedLines(patch)).toEqual({ added: 3000, removed: 3000 });
    applies(before, after, patch);
  });

  it('lines added, removed and moved in a large file give the same number of changed lines as an unbounded diff', () => {
    const lines = lockFile(6000, 'v1').split('\n');
    const moved = lines.splice(1000, 40);
    lines.splice(4000, 0, ...moved);
    lines.splice(2500, 30);
    lines.splice(5000, 0, ...Array.from({ length: 25 }, (_, index) => `    "new-${index}": true,`));
    const before = lockFile(6000, 'v1');
    const after = lines.join('\n');
    const patch = unifiedPatch('f', Buffer.from(before), Buffer.from(after))!;
    const unbounded = changedLines(createTwoFilesPatch('a/f', 'b/f', before, after));
    expect(changedLines(patch)).toEqual(unbounded);
    applies(before, after, patch);
  });

  it('pathological input (20,000 lines of three repeated values, reshuffled) ends with a patch that still applies exactly', () => {
    let state = 7;
    const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    const text = () => `${Array.from({ length: 20_000 }, () => ['a', 'b', 'c'][Math.floor(random() * 3)]).join('\n')}\n`;
    const before = text();
    const after = text();
    const patch = unifiedPatch('f', Buffer.from(before), Buffer.from(after))!;
    const { added, removed } = changedLines(patch);
    expect(added).toBeLessThanOrEqual(20_000);
    expect(removed).toBeLessThanOrEqual(20_000);
    applies(before, after, patch);
  });

  it('the number of changed lines is minimal on random small edits (same count as an unbounded diff), and patches apply both ways', () => {
    const line = fc.constantFrom('a', 'b', 'c', 'd', '', 'x y');
    const text = fc.array(line, { maxLength: 200 }).chain((lines) => fc.boolean().map((newline) => lines.join('\n') + (newline && lines.length ? '\n' : '')));
    fc.assert(
      fc.property(text, text, (before, after) => {
        const patch = unifiedPatch('f.txt', Buffer.from(before), Buffer.from(after))!;
        applies(before, after, patch);
        const unbounded = changedLines(createTwoFilesPatch('a/f.txt', 'b/f.txt', before, after));
        expect(changedLines(patch)).toEqual(unbounded);
      }),
      { numRuns: 200 },
    );
  });
});
