import { describe, expect, it } from 'vitest';
import { LineBuffer } from './line-buffer.js';

describe('LineBuffer', () => {
  it('edits at the cursor, an emoji one step', () => {
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

  it('moves and deletes by grapheme: a combining accent, a family emoji, a flag and a skin tone are one character each', () => {
    const family = '👨‍👩‍👧';
    const line = new LineBuffer();
    line.insert(`cafe\u0301 ${family}🇫🇷👍🏽`);
    expect(line.cursor).toBe(8);
    line.backspace();
    expect(line.text).toBe(`cafe\u0301 ${family}🇫🇷`);
    line.left();
    expect(line.after).toBe('🇫🇷');
    line.backspace();
    expect(line.text).toBe('cafe\u0301 🇫🇷');
    line.home();
    for (let step = 0; step < 4; step++) line.right();
    expect(line.before).toBe('cafe\u0301');
    line.backspace();
    expect(line.text).toBe('caf 🇫🇷');
    line.end();
    line.left();
    line.deleteForward();
    expect(line.text).toBe('caf ');
    // No lone surrogate or dangling joiner is ever left behind.
    expect(/\p{Cs}/u.test(line.text)).toBe(false);
  });

  it('keeps a combining mark typed after its letter with it, and the cursor after both', () => {
    const line = new LineBuffer();
    line.insert('e');
    line.insert('\u0301');
    expect(line.text).toBe('é'.normalize('NFD'));
    expect(line.cursor).toBe(1);
    line.left();
    expect(line.cursor).toBe(0);
    line.deleteForward();
    expect(line.text).toBe('');
  });

  it('edits CJK text and deletes a CJK word before the cursor', () => {
    const line = new LineBuffer();
    line.insert('修复 中文输入');
    expect(line.cursor).toBe(7);
    line.left();
    line.backspace();
    expect(line.text).toBe('修复 中文入');
    line.end();
    line.deleteWord();
    expect(line.text).toBe('修复 ');
  });

  it('holds a pasted block with its newlines', () => {
    const line = new LineBuffer();
    line.insert('first\nsecond\n');
    line.insert('third');
    expect(line.text).toBe('first\nsecond\nthird');
    line.home();
    line.killAfter();
    expect(line.take()).toBe('');
  });
});
