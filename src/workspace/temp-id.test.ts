import { describe, expect, it } from 'vitest';
import { tempId } from './temp-id.js';

describe('tempId', () => {
  it('gives 12 hex digits, never the same twice, across refills of its pool', () => {
    const ids = Array.from({ length: 3000 }, () => tempId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
