import type { PickRequest } from './chat-io.js';
import { clipWidth, displayWidth } from '../render/text-width.js';
import type { Style } from './style.js';

/** How many items a picker shows at once; the window scrolls to keep the selection visible. */
export const PICKER_ROWS = 10;

/** The first visible row for a selection, keeping the previous window when the selection is still in it. */
export function scrollWindow(selected: number, count: number, previousTop: number, rows = PICKER_ROWS): number {
  if (count <= rows) return 0;
  let top = Math.min(Math.max(previousTop, 0), count - rows);
  if (selected < top) top = selected;
  if (selected >= top + rows) top = selected - rows + 1;
  return top;
}

/** What a key does in a picker of `count` items: moves the selection (in `state`), chooses, cancels, or nothing (null). */
export function pickerKey(name: string | undefined, state: { selected: number }, count: number): 'moved' | 'choose' | 'cancel' | null {
  switch (name) {
    case 'escape':
      return 'cancel';
    case 'return':
    case 'enter':
      return 'choose';
    case 'up':
      if (count > 0) state.selected = (state.selected - 1 + count) % count;
      return 'moved';
    case 'down':
      if (count > 0) state.selected = (state.selected + 1) % count;
      return 'moved';
    case 'pageup':
      state.selected = Math.max(0, state.selected - 10);
      return 'moved';
    case 'pagedown':
      state.selected = Math.max(0, Math.min(count - 1, state.selected + 10));
      return 'moved';
    case 'home':
      state.selected = 0;
      return 'moved';
    case 'end':
      state.selected = Math.max(0, count - 1);
      return 'moved';
    default:
      return null;
  }
}

/** The lines of a picker: title, the visible window (the selection marked), and the key hints. */
export function pickerLines<Value>(
  request: PickRequest<Value>,
  state: { selected: number; top: number },
  style: Style,
  columns: number,
  rows = PICKER_ROWS,
): string[] {
  const width = Math.max(20, columns - 1);
  const clip = (text: string, max: number) => clipWidth(text, Math.max(1, max));
  const lines = [style.bold(clip(request.title, width))];
  if (request.items.length === 0) {
    lines.push(`  ${clip(request.empty ?? 'Nothing to choose.', width - 2)}`, style.dim('  Esc to close'));
    return lines;
  }
  const end = Math.min(request.items.length, state.top + rows);
  if (state.top > 0) lines.push(style.dim(`  ↑ ${state.top} more`));
  for (let index = state.top; index < end; index++) {
    const item = request.items[index]!;
    const mark = index === state.selected ? '❯ ' : '  ';
    const detail = item.detail ? `  ${item.detail}` : '';
    const label = clip(item.label, Math.max(10, width - 2 - displayWidth(detail)));
    const text = `${mark}${label}`;
    lines.push(index === state.selected ? `${style.accent(text)}${style.dim(detail)}` : `${text}${style.dim(detail)}`);
  }
  if (end < request.items.length) lines.push(style.dim(`  ↓ ${request.items.length - end} more`));
  lines.push(style.dim('  ↑/↓ to move · Enter to choose · Esc to cancel'));
  return lines;
}
