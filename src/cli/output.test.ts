import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { streamOutput } from './output.js';

function sink() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('progress', () => {
  it('on a terminal: one bar redrawn in place, cleared at the end, then the summary', () => {
    const err = sink();
    const progress = streamOutput({ stdout: sink().stream, stderr: err.stream, tty: true }).progress('materializing');
    for (let done = 1; done <= 4; done++) progress.update(done, 4);
    progress.done('4 files written');
    const text = err.text();
    expect(text).toContain('\r\x1b[2Kmaterializing [');
    expect(text).toContain('] 4/4');
    expect(text).not.toMatch(/\n.*materializing \[/);
    expect(text.endsWith('\r\x1b[2Kmaterializing: 4 files written\n')).toBe(true);
  });

  it('not on a terminal: plain lines, the first and then one per tenth, and the summary', () => {
    const err = sink();
    const progress = streamOutput({ stdout: sink().stream, stderr: err.stream, tty: false }).progress('gc');
    progress.step('marking');
    for (let done = 1; done <= 100; done++) progress.update(done, 100);
    progress.done('3 blobs swept');
    const lines = err.text().trim().split('\n');
    expect(lines[0]).toBe('gc: marking');
    expect(lines.at(-1)).toBe('gc: 3 blobs swept');
    expect(lines.filter((line) => /^gc: \d+\/100$/.test(line))).toHaveLength(11);
    expect(err.text()).not.toContain('\r');
  });
});
