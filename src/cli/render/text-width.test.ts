import { describe, expect, it } from 'vitest';
import { oneLine, table } from './format.js';
import { clipWidth, displayWidth, graphemes, padEndWidth } from './text-width.js';

describe('text measured in display columns', () => {
  it('counts CJK as two columns, an emoji sequence as two, a combining mark as none, color codes as none', () => {
    expect(displayWidth('中文')).toBe(4);
    expect(displayWidth('👨‍👩‍👧')).toBe(2);
    expect(displayWidth('👍🏽')).toBe(2);
    expect(displayWidth('🇫🇷')).toBe(2);
    expect(displayWidth('cafe\u0301')).toBe(4);
    expect(displayWidth('\x1b[36mab\x1b[39m')).toBe(2);
    expect(graphemes('e\u0301👨‍👩‍👧中')).toEqual(['e\u0301', '👨‍👩‍👧', '中']);
  });

  it('clips to a width between graphemes, never inside a surrogate pair or a wide character', () => {
    expect(clipWidth('中文字符', 5)).toBe('中文…');
    expect(displayWidth(clipWidth('中文字符', 5))).toBe(5);
    expect(clipWidth('😀😀😀', 4)).toBe('😀…');
    expect(clipWidth('😀😀😀', 6)).toBe('😀😀😀');
    expect(clipWidth('cafe\u0301 au lait', 5)).toBe('cafe\u0301…');
    expect(oneLine('ein 👨‍👩‍👧 zwei', 6)).toBe('ein …');
    expect(/\p{Cs}/u.test(oneLine('😀'.repeat(100), 11))).toBe(false);
    expect(padEndWidth('中', 4)).toBe('中  ');
  });

  it('aligns table columns by display width', () => {
    const lines = table([
      ['ID', 'TITLE', 'TURNS'],
      ['ses_1', '修复中文输入', '3'],
      ['ses_2', 'emoji 👍🏽 ok', '12'],
      ['ses_3', 'cafe\u0301', '1'],
    ]);
    const turnsColumn = lines.map((line) => displayWidth(line.slice(0, line.lastIndexOf(' ') + 1)));
    expect(new Set(turnsColumn).size).toBe(1);
  });
});
