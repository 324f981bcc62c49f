import { describe, expect, it } from 'vitest';
import { EventBus } from './events.js';

describe('EventBus', () => {
  it('delivers to listeners in order, supports off and once', () => {
    const bus = new EventBus<{ ping: { n: number } }>();
    const seen: string[] = [];
    const off = bus.on('ping', ({ n }) => seen.push(`a${n}`));
    bus.once('ping', ({ n }) => seen.push(`once${n}`));
    bus.emit('ping', { n: 1 });
    off();
    bus.on('ping', ({ n }) => seen.push(`b${n}`));
    bus.emit('ping', { n: 2 });
    expect(seen).toEqual(['a1', 'once1', 'b2']);
    expect(bus.listenerCount('ping')).toBe(1);
  });

  it('a throwing listener neither breaks the emitter nor the other listeners', () => {
    const errors: unknown[] = [];
    const bus = new EventBus<{ ping: null }>((error) => errors.push(error));
    const seen: number[] = [];
    bus.on('ping', () => {
      throw new Error('listener bug');
    });
    bus.on('ping', () => seen.push(1));
    expect(() => bus.emit('ping', null)).not.toThrow();
    expect(seen).toEqual([1]);
    expect(errors).toHaveLength(1);
  });
});
