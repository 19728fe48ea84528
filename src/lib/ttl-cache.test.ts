import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache.js';

describe('TtlCache', () => {
  it('loads once within the TTL, again after it, and forgets a failed load', async () => {
    let now = 0;
    let loads = 0;
    const cache = new TtlCache<number>(100, () => now);
    const load = async () => ++loads;
    expect(await Promise.all([cache.get('a', load), cache.get('a', load)])).toEqual([1, 1]);
    now = 99;
    expect(await cache.get('a', load)).toBe(1);
    now = 100;
    expect(await cache.get('a', load)).toBe(2);
    await expect(cache.get('b', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('b', load)).toBe(3);
  });
});
