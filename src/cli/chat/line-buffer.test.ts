import { describe, expect, it } from 'vitest';
import { LineBuffer } from './line-buffer.js';

describe('LineBuffer', () => {
  it('edits at the cursor, by code point', () => {
    const line = new LineBuffer();
    line.insert('hllo 👋');
    expect(line.cursor).toBe(6);
    line.home();
    line.right();
    line.insert('e');
    expect(line.text).toBe('hello 👋');
    line.end();
    line.backspace();
    expect(line.text).toBe('hello ');
    line.left();
    line.deleteForward();
    expect(line.text).toBe('hello');
    expect(line.tail).toBe(0);
  });

  it('kills before and after the cursor, deletes a word, and is taken empty on Enter', () => {
    const line = new LineBuffer();
    line.set('/rewind code msg_1');
    line.deleteWord();
    expect(line.text).toBe('/rewind code ');
    line.left();
    line.left();
    line.killAfter();
    expect(line.text).toBe('/rewind cod');
    line.killBefore();
    expect(line.text).toBe('');
    line.set('draft');
    expect(line.take()).toBe('draft');
    expect(line.text).toBe('');
    expect(line.cursor).toBe(0);
  });
});
