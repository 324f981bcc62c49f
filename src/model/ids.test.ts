import { describe, expect, it } from 'vitest';
import { ID_PREFIXES, idTime, isId, newId } from './ids.js';

describe('ids', () => {
  it('carry a readable prefix per kind and a fixed-length body', () => {
    for (const kind of Object.keys(ID_PREFIXES) as Array<keyof typeof ID_PREFIXES>) {
      const id = newId(kind);
      expect(id.startsWith(`${ID_PREFIXES[kind]}_`)).toBe(true);
      expect(isId(kind, id)).toBe(true);
    }
    expect(isId('session', newId('message'))).toBe(false);
    expect(isId('session', 'ses_short')).toBe(false);
    expect(isId('session', 42)).toBe(false);
  });

  it('sort in creation order, even many within one millisecond', () => {
    const ids = Array.from({ length: 5000 }, () => newId('message', 1_700_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    const later = newId('message', 1_700_000_000_500);
    expect(later > ids.at(-1)!).toBe(true);
  });

  it('encode their creation time', () => {
    const now = Date.now();
    expect(idTime(newId('turn', now + 10_000))).toBe(now + 10_000);
  });
});
