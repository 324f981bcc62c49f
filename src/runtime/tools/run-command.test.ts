import { describe, expect, it } from 'vitest';
import { runCommand } from './run-command.js';

const node = JSON.stringify(process.execPath);
const run = (script: string, maxOutputChars = 1_000_000) =>
  runCommand(`${node} -e ${JSON.stringify(script)}`, { cwd: process.cwd(), timeoutMs: 60_000, signal: new AbortController().signal, maxOutputChars });

describe('runCommand output', () => {
  it('decodes UTF-8 split across chunks: 200k CJK characters come back whole, no U+FFFD', async () => {
    // 600 KB through a pipe arrives in 64 KB chunks, and 65,536 is not a multiple of 3 bytes.
    const outcome = await run(`process.stdout.write('中'.repeat(200000))`);
    expect(outcome.exitCode).toBe(0);
    expect(outcome.output.includes('\uFFFD')).toBe(false);
    expect(outcome.output).toBe('中'.repeat(200000));
  });

  it('decodes stdout and stderr each on its own, so bytes of one character are not broken by the other stream', async () => {
    const script = [
      "const { writeSync } = require('node:fs');",
      "const bytes = Buffer.from('é😀');",
      'writeSync(1, bytes.subarray(0, 1));',
      "setTimeout(() => { writeSync(2, 'err '); setTimeout(() => writeSync(1, bytes.subarray(1)), 50); }, 50);",
    ].join(' ');
    const outcome = await run(script);
    expect(outcome.output.includes('\uFFFD')).toBe(false);
    expect(outcome.output.replace('err ', '')).toBe('é😀');
  });

  it('keeps the tail of a long output without a broken surrogate pair at the cut', async () => {
    const outcome = await run(`process.stdout.write('😀'.repeat(5000))`, 1001);
    expect(outcome.output).toMatch(/^\[\d+ earlier characters cut\]\n/);
    const tail = outcome.output.slice(outcome.output.indexOf('\n') + 1);
    expect(tail).toBe('😀'.repeat(500));
  });

  it('shows a character the command stopped in the middle of as one U+FFFD', async () => {
    const outcome = await run(`process.stdout.write(Buffer.from('ab中').subarray(0, 3))`);
    expect(outcome.output).toBe('ab\uFFFD');
  });
});
