import type { PartContent } from '../../model/index.js';
import { clipWidth, displayWidth, padEndWidth } from './text-width.js';

/** `1.5 KiB`, `3.2 MiB`: bytes for a person. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value >= 100 ? 0 : 1)} ${units[unit]}`;
}

/** `2025-03-01 14:02:11` (UTC, so the output does not depend on where it runs). */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}

/** One line, at most `max` display columns (cut between characters, never inside one). */
export function oneLine(text: string, max = 72): string {
  return clipWidth(text.replace(/\s+/g, ' ').trim(), max);
}

/** Columns padded to the widest cell, in display columns (CJK and emoji are two wide); the last column is not padded. */
export function table(rows: readonly (readonly string[])[], gap = '  '): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [index, cell] of row.entries()) widths[index] = Math.max(widths[index] ?? 0, displayWidth(cell));
  }
  return rows.map((row) =>
    row
      .map((cell, index) => (index === row.length - 1 ? cell : padEndWidth(cell, widths[index]!)))
      .join(gap)
      .trimEnd(),
  );
}

export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}

/** `workspace:src/a.ts` → `src/a.ts`; other roots keep their name. */
export function shortPath(key: string): string {
  return key.startsWith('workspace:') ? key.slice('workspace:'.length) : key;
}

/** A part as a person reads it in a conversation listing: text as is, the rest summarized. */
export function describePart(content: PartContent | undefined, options: { full?: boolean } = {}): string {
  if (!content) return '[part not loaded]';
  const max = options.full ? Number.POSITIVE_INFINITY : 200;
  const clip = (text: string) => (text.length > max ? clipWidth(text, max) : text);
  switch (content.type) {
    case 'text':
      return typeof content.text === 'string' ? (options.full ? content.text : clip(content.text)) : '';
    case 'reasoning':
      return `[reasoning] ${clip(String(content.text ?? ''))}`;
    case 'tool-call':
      return `[tool-call ${String(content.toolName ?? '?')} ${String(content.toolCallId ?? '')}] ${clip(JSON.stringify(content.input ?? null))}`;
    case 'tool-result':
      return `[tool-result ${String(content.toolName ?? '?')} ${String(content.toolCallId ?? '')}] ${clip(JSON.stringify(content.output ?? null))}`;
    default:
      return `[${content.type}] ${clip(JSON.stringify(content))}`;
  }
}

/** The parts of a message as lines, indented. */
export function partLines(parts: ReadonlyArray<PartContent | null | undefined>, options: { full?: boolean; indent?: string } = {}): string[] {
  const indent = options.indent ?? '  ';
  return parts.flatMap((content) =>
    describePart(content ?? undefined, options)
      .split('\n')
      .map((line) => `${indent}${line}`),
  );
}
