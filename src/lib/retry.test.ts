import { describe, expect, it } from 'vitest';
import { FakeClock, StuckClock } from '../../test/fakes/fake-clock.js';
import { defaultClassify, parseRetryAfter, withRetry } from './retry.js';
import { LlmError } from './llm-client.js';
import { ProviderError } from '../engine/provider.js';

const httpError = (status: number, extra: { code?: string; retryAfterMs?: number } = {}) =>
  new ProviderError(status === 429 ? 'rate_limited' : 'provider_error', 'boom', { status, ...extra });

function failing(errors: unknown[], then: string = 'ok') {
  let calls = 0;
  const fn = async () => {
    const e = errors[calls++];
    if (e !== undefined) throw e;
    return then;
  };
  return { fn, calls: () => calls };
}

describe('withRetry', () => {
  const signal = new AbortController().signal;

  it('waits 2 s, 4 s, 8 s on repeated 429 and then gives up with the last error', async () => {
    const clock = new FakeClock();
    const errs = [httpError(429), httpError(429), httpError(429), httpError(429), httpError(429)];
    const f = failing(errs);
    const retries: number[] = [];
    await expect(withRetry(f.fn, { clock, signal, onRetry: (i) => retries.push(i.attempt) })).rejects.toBe(errs[3]);
    expect(clock.sleeps).toEqual([2000, 4000, 8000]);
    expect(f.calls()).toBe(4);
    expect(retries).toEqual([1, 2, 3]);
  });

  it('returns the first success', async () => {
    const clock = new FakeClock();
    const f = failing([httpError(503), httpError(500)]);
    await expect(withRetry(f.fn, { clock, signal })).resolves.toBe('ok');
    expect(clock.sleeps).toEqual([2000, 4000]);
  });

  it.each([408, 500, 502, 503, 504])('retries %i', async (status) => {
    const clock = new FakeClock();
    const f = failing([httpError(status)]);
    await expect(withRetry(f.fn, { clock, signal })).resolves.toBe('ok');
    expect(clock.sleeps).toEqual([2000]);
  });

  it.each([400, 401, 403, 404, 409, 422, 501])('never retries %i', async (status) => {
    const clock = new FakeClock();
    const err = httpError(status);
    const f = failing([err]);
    await expect(withRetry(f.fn, { clock, signal })).rejects.toBe(err);
    expect(clock.sleeps).toEqual([]);
    expect(f.calls()).toBe(1);
  });

  it('does not retry a 429 that means the quota is exhausted', async () => {
    const clock = new FakeClock();
    const err = httpError(429, { code: 'insufficient_quota' });
    await expect(withRetry(failing([err]).fn, { clock, signal })).rejects.toBe(err);
    expect(clock.sleeps).toEqual([]);
  });

  it('waits longer when Retry-After asks for more, never less than the schedule', async () => {
    const clock = new FakeClock();
    const f = failing([httpError(429, { retryAfterMs: 10_000 }), httpError(429, { retryAfterMs: 1000 }), httpError(429)]);
    await expect(withRetry(f.fn, { clock, signal })).resolves.toBe('ok');
    expect(clock.sleeps).toEqual([10_000, 4000, 8000]);
  });

  it('gives up at once when Retry-After exceeds the longest wait we accept', async () => {
    const clock = new FakeClock();
    const err = httpError(429, { retryAfterMs: 3_600_000 });
    await expect(withRetry(failing([err]).fn, { clock, signal })).rejects.toBe(err);
    expect(clock.sleeps).toEqual([]);
  });

  it('retries connection refused and reset, not DNS failures', async () => {
    const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) });
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const dns = new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ENOTFOUND' }) });
    const clock = new FakeClock();
    await expect(withRetry(failing([refused, reset]).fn, { clock, signal })).resolves.toBe('ok');
    expect(clock.sleeps).toEqual([2000, 4000]);
    await expect(withRetry(failing([dns]).fn, { clock: new FakeClock(), signal })).rejects.toBe(dns);
  });

  it('reads the socket code through our own error wrappers', () => {
    const sys = (code: string) => Object.assign(new Error(code), { code });
    const wrapped = (code: string) =>
      new ProviderError('unreachable', 'connection failed', { cause: new LlmError('unreachable', 'connection failed', { network: true, cause: new TypeError('fetch failed', { cause: sys(code) }) }) });
    expect(defaultClassify(wrapped('ECONNREFUSED')).retry).toBe(true);
    expect(defaultClassify(wrapped('ECONNRESET')).retry).toBe(true);
    expect(defaultClassify(wrapped('ENOTFOUND')).retry).toBe(false);
    expect(defaultClassify(new LlmError('unreachable', 'x', { network: true })).retry).toBe(false);
  });

  it('the abort signal interrupts the wait between attempts', async () => {
    const clock = new StuckClock();
    const ac = new AbortController();
    const f = failing([httpError(503)]);
    const p = withRetry(f.fn, { clock, signal: ac.signal });
    await new Promise((r) => setTimeout(r, 10));
    expect(clock.sleeps).toEqual([2000]);
    ac.abort(new Error('run canceled'));
    await expect(p).rejects.toThrow('run canceled');
    expect(f.calls()).toBe(1);
  });

  it('honours a custom schedule', async () => {
    const clock = new FakeClock();
    const err = httpError(500);
    await expect(withRetry(failing([err, err]).fn, { clock, signal, schedule: [5] })).rejects.toBe(err);
    expect(clock.sleeps).toEqual([5]);
  });
});

describe('parseRetryAfter', () => {
  const h = (o: Record<string, string>) => new Headers(o);
  const now = Date.parse('2026-11-21T15:00:00.000Z');

  it('reads seconds, HTTP dates and retry-after-ms (which wins)', () => {
    expect(parseRetryAfter(h({ 'retry-after': '7' }), now)).toBe(7000);
    expect(parseRetryAfter(h({ 'retry-after': 'Sat, 21 Nov 2026 15:00:30 GMT' }), now)).toBe(30_000);
    expect(parseRetryAfter(h({ 'retry-after': '7', 'retry-after-ms': '1500' }), now)).toBe(1500);
  });

  it('is null when absent or nonsense, and never negative', () => {
    expect(parseRetryAfter(h({}), now)).toBeNull();
    expect(parseRetryAfter(h({ 'retry-after': 'soon' }), now)).toBeNull();
    expect(parseRetryAfter(h({ 'retry-after': 'Sat, 21 Nov 2026 14:00:00 GMT' }), now)).toBe(0);
  });
});

describe('defaultClassify', () => {
  it('reads the quota code from either code or type', () => {
    expect(defaultClassify({ status: 429, type: 'insufficient_quota' }).retry).toBe(false);
    expect(defaultClassify({ status: 429, code: 'rate_limit_exceeded' }).retry).toBe(true);
  });
});
