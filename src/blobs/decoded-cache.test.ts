import { describe, expect, it } from 'vitest';
import { DecodedCache } from './decoded-cache.js';

describe('DecodedCache', () => {
  it('keeps many small contents within its budget, each entry counted with its overhead, the least recently used out first', () => {
    const cache = new DecodedCache(64 * 1024);
    const content = (index: number) => Buffer.from(`line ${index}\n`.repeat(10));
    for (let index = 0; index < 1000; index++) cache.set(`h${index}`, content(index));
    expect(cache.size).toBeLessThanOrEqual(64 * 1024);
    // 1000 entries of about 80 bytes would be 80 KB without their overhead: far fewer fit.
    const kept = Array.from({ length: 1000 }, (_, index) => cache.get(`h${index}`) !== undefined).filter(Boolean).length;
    expect(kept).toBeGreaterThan(100);
    expect(kept).toBeLessThan(400);
    expect(cache.get('h0')).toBeUndefined();
    expect(cache.get('h999')).toEqual(content(999));
  });

  it('hands out copies and keeps its own: changing either changes nothing kept', () => {
    const cache = new DecodedCache(1024 * 1024);
    const original = Buffer.from('original bytes');
    cache.set('a', original);
    original.fill(0);
    const copy = cache.get('a')!;
    expect(copy.toString()).toBe('original bytes');
    copy.fill(0);
    expect(cache.get('a')!.toString()).toBe('original bytes');
  });

  it('peek hands out the kept bytes themselves, and counts as a use for the least-recently-used order', () => {
    const cache = new DecodedCache(4 * (10 + 192));
    cache.set('a', Buffer.from('aaaaaaaaaa'));
    cache.set('b', Buffer.from('bbbbbbbbbb'));
    expect(cache.peek('a')).toBe(cache.peek('a'));
    cache.set('c', Buffer.from('cccccccccc'));
    cache.set('d', Buffer.from('dddddddddd'));
    cache.set('e', Buffer.from('eeeeeeeeee'));
    // 'b' was the least recently used once 'a' was peeked at: it went first.
    expect(cache.peek('b')).toBeUndefined();
    expect(cache.peek('a')?.toString()).toBe('aaaaaaaaaa');
    expect(cache.peek('missing')).toBeUndefined();
  });

  it('never keeps one content larger than a quarter of its budget', () => {
    const cache = new DecodedCache(4096);
    expect(cache.keeps(800)).toBe(true);
    expect(cache.keeps(1000)).toBe(false);
    cache.set('big', Buffer.alloc(2000));
    expect(cache.get('big')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
