import { describe, expect, it } from 'vitest';
import { canonicalJson, idempotencyKey } from './tool-executor.js';
import { globToRegExp } from './tools/glob-pattern.js';

describe('idempotency keys', () => {
  it('are equal for equal inputs whatever the key order, and differ by tool and input', () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[1,{"c":2,"d":1}]}');
    expect(idempotencyKey('notify', { a: 1, b: 2 })).toBe(idempotencyKey('notify', { b: 2, a: 1 }));
    expect(idempotencyKey('notify', { a: 1 })).not.toBe(idempotencyKey('email', { a: 1 }));
    expect(idempotencyKey('notify', { a: 1 })).not.toBe(idempotencyKey('notify', { a: 2 }));
  });
});

describe('globToRegExp', () => {
  it.each([
    ['*.ts', 'a.ts', true],
    ['*.ts', 'src/deep/a.ts', true],
    ['*.ts', 'a.tsx', false],
    ['src/*.ts', 'src/a.ts', true],
    ['src/*.ts', 'src/x/a.ts', false],
    ['src/**/*.ts', 'src/a.ts', true],
    ['src/**/*.ts', 'src/x/y/a.ts', true],
    ['**/*.{js,json}', 'a/b.json', true],
    ['**/*.{js,json}', 'a/b.ts', false],
    ['file?.txt', 'file1.txt', true],
    ['[ab].md', 'b.md', true],
    ['[!ab].md', 'b.md', false],
    ['a.b', 'axb', false],
  ])('%s matches %s: %s', (pattern, path, expected) => {
    expect(globToRegExp(pattern).test(path)).toBe(expected);
  });
});
