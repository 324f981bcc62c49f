import { describe, expect, it } from 'vitest';
import { pickerLines, scrollWindow } from './picker-view.js';
import { displayWidth } from '../render/text-width.js';
import { createStyle } from './style.js';

const style = createStyle(false);
const items = Array.from({ length: 25 }, (_, index) => ({ label: `item ${index}`, value: index }));

describe('picker view', () => {
  it('keeps the selection inside a 10-row window that scrolls only when needed', () => {
    expect(scrollWindow(0, 25, 0)).toBe(0);
    expect(scrollWindow(9, 25, 0)).toBe(0);
    expect(scrollWindow(10, 25, 0)).toBe(1);
    expect(scrollWindow(5, 25, 3)).toBe(3);
    expect(scrollWindow(2, 25, 3)).toBe(2);
    expect(scrollWindow(24, 25, 0)).toBe(15);
    expect(scrollWindow(3, 5, 2)).toBe(0);
  });

  it('marks the selection, says how many are hidden, and shows an empty state', () => {
    const lines = pickerLines({ title: 'Pick', items }, { selected: 12, top: 3 }, style, 80);
    expect(lines[0]).toBe('Pick');
    expect(lines[1]).toBe('  ↑ 3 more');
    expect(lines).toContain('❯ item 12');
    expect(lines).toContain('  item 3');
    expect(lines).not.toContain('  item 13 ');
    expect(lines.at(-2)).toBe('  ↓ 12 more');
    expect(lines.at(-1)).toContain('Esc to cancel');
    const empty = pickerLines({ title: 'Pick', items: [], empty: 'Nothing here.' }, { selected: 0, top: 0 }, style, 80);
    expect(empty).toEqual(['Pick', '  Nothing here.', '  Esc to close']);
  });

  it('clips long labels to the terminal width', () => {
    const lines = pickerLines({ title: 'T', items: [{ label: 'x'.repeat(300), detail: 'detail', value: 1 }] }, { selected: 0, top: 0 }, style, 60);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(59);
  });

  it('clips CJK and emoji labels by display columns, so a row never wraps', () => {
    const labels = ['修复中文输入法的问题'.repeat(10), '👨‍👩‍👧 family '.repeat(20)];
    const lines = pickerLines(
      { title: '会话'.repeat(40), items: labels.map((label, value) => ({ label, detail: '三天前', value })) },
      { selected: 0, top: 0 },
      style,
      60,
    );
    for (const line of lines) {
      expect(displayWidth(line)).toBeLessThanOrEqual(59);
      expect(/\p{Cs}/u.test(line)).toBe(false);
    }
  });
});
