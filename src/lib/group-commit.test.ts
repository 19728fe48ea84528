import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.js';

describe('GroupCommit', () => {
  it('writes the first item at once and batches the ones that arrive meanwhile', async () => {
    const batches: number[][] = [];
    const gc = new GroupCommit<number, number>(async (items) => {
      batches.push(items);
      await new Promise((r) => setTimeout(r, 20));
      return items.map((i) => i * 2);
    });
    const results = await Promise.all([1, 2, 3, 4].map((i) => gc.add(i)));
    expect(results).toEqual([2, 4, 6, 8]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('rejects every item of a failed batch and goes on with the next', async () => {
    let calls = 0;
    const gc = new GroupCommit<number, number>(async (items) => {
      calls++;
      if (calls === 1) throw new Error('boom');
      return items;
    });
    await expect(gc.add(1)).rejects.toThrow('boom');
    await expect(gc.add(2)).resolves.toBe(2);
  });

  it('caps the batch size', async () => {
    const sizes: number[] = [];
    const gc = new GroupCommit<number, number>(async (items) => { sizes.push(items.length); await new Promise((r) => setTimeout(r, 5)); return items; }, 2);
    await Promise.all([1, 2, 3, 4, 5].map((i) => gc.add(i)));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(5);
  });
});
