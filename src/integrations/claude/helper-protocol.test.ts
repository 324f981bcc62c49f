import { describe, expect, it } from 'vitest';
import { HelperRequestReader, tokenLine, tokensMatch } from './helper-protocol.js';

const TOKEN = '0123456789abcdef0123456789abcdef';

describe("the helper protocol's request line", () => {
  const read = (...chunks: string[]) => {
    const reader = new HelperRequestReader(TOKEN);
    let result: ReturnType<HelperRequestReader['feed']> = null;
    for (const chunk of chunks) result = reader.feed(Buffer.from(chunk));
    return result;
  };

  it("takes the bare token as a Claude event (every older client's line), `codex` as a Codex event, `status` with no event", () => {
    expect(read(`${TOKEN}\n{"a":1}\0`)).toEqual({ kind: 'claude', stdin: '{"a":1}' });
    expect(read(tokenLine(TOKEN, 'codex'), '{"b":', '2}\0')).toEqual({ kind: 'codex', stdin: '{"b":2}' });
    expect(read(`${tokenLine(TOKEN, 'status')}\0`)).toEqual({ kind: 'status', stdin: '' });
    expect(tokenLine(TOKEN, 'claude')).toBe(`${TOKEN}\n`);
  });

  it('denies a wrong token whatever it asks for, and a right token asking for something unknown', () => {
    const wrong = `${TOKEN.slice(0, -1)}0`;
    expect(read(`${wrong}\n{}\0`)).toBe('denied');
    expect(read(`${wrong} codex\n{}\0`)).toBe('denied');
    expect(read(`${TOKEN} gemini\n{}\0`)).toBe('denied');
    expect(read(`${TOKEN}  codex\n{}\0`)).toBe('denied');
    expect(read(`${TOKEN} codex \n{}\0`)).toBe('denied');
    expect(read(`${TOKEN} __proto__\n{}\0`)).toBe('denied');
    expect(read(`${TOKEN} ${'x'.repeat(300)}`)).toBe('denied');
  });

  it('a Codex or status line never passes a helper that compares the whole line with its token (a helper from before agents were named)', () => {
    for (const kind of ['codex', 'status'] as const) expect(tokensMatch(tokenLine(TOKEN, kind).trimEnd(), TOKEN)).toBe(false);
    expect(tokensMatch(tokenLine(TOKEN, 'claude').trimEnd(), TOKEN)).toBe(true);
  });
});
