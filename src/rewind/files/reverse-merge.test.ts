import { describe, expect, it } from 'vitest';
import { reverseMerge } from './reverse-merge.js';

const lines = (count: number, tag = '') => Array.from({ length: count }, (_, index) => `line ${index}${tag}`);

describe('reverseMerge', () => {
  it("undoes a 175-line change of a large file and keeps the person's later edit elsewhere in it", () => {
    const before = lines(14_000);
    const after = [...before];
    for (let index = 0; index < 175; index++) after[index * 70 + 35] += ' bumped';
    const current = [...after];
    current[20] = 'edited by the person';
    current.push('appended by the person');
    const merged = reverseMerge(Buffer.from(`${current.join('\n')}\n`), Buffer.from(`${before.join('\n')}\n`), Buffer.from(`${after.join('\n')}\n`));
    const expected = [...before];
    expected[20] = 'edited by the person';
    expected.push('appended by the person');
    expect(merged?.toString()).toBe(`${expected.join('\n')}\n`);
  });

  it('refuses (null) when the person edited a line the change touched', () => {
    const before = lines(50);
    const after = [...before];
    after[10] = 'agent';
    const current = [...after];
    current[10] = 'person';
    expect(reverseMerge(Buffer.from(current.join('\n')), Buffer.from(before.join('\n')), Buffer.from(after.join('\n')))).toBeNull();
  });
});
