import { describe, expect, it } from 'vitest';
import { Coalescer } from './coalescer.js';

describe('Coalescer', () => {
  it('makes one batch call for the calls of one event-loop turn, and a new one for the next turn', async () => {
    const batches: number[][] = [];
    const c = new Coalescer<number, number>(async (keys) => { batches.push(keys); return keys.length; });
    expect(await Promise.all([c.add(1), c.add(2), c.add(3)])).toEqual([3, 3, 3]);
    expect(await c.add(4)).toBe(1);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });
});
