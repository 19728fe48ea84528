import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/fakes/webhook-receiver.js';
import { forbiddenReason } from './address-policy.js';
import { guardedLookup, postJson, signedHeaders, type Resolver } from './outbound.js';

const REFUSED: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'], ['::1', 'loopback'],
  ['10.0.0.1', 'private'], ['172.16.5.4', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local'], ['fe80::1', 'link-local'], ['fe80::1%eth0', 'link-local'], ['febf::1', 'link-local'],
  ['100.64.0.1', 'carrier-grade NAT'], ['100.127.255.254', 'carrier-grade NAT'],
  ['fc00::1', 'unique-local'], ['fd12:3456::1', 'unique-local'],
  ['0.0.0.0', 'unspecified'], ['::', 'unspecified'],
  ['224.0.0.1', 'multicast'], ['239.255.255.250', 'multicast'], ['ff02::1', 'multicast'], ['255.255.255.255', 'broadcast'],
  // IPv4-mapped IPv6, dotted and hex, judged as the IPv4 address they carry
  ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'], ['::ffff:10.1.2.3', 'private'], ['::ffff:a01:203', 'private'],
  ['::ffff:172.16.0.1', 'private'], ['::ffff:192.168.0.1', 'private'], ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:100.64.0.1', 'carrier-grade NAT'], ['::ffff:0.0.0.0', 'unspecified'], ['::ffff:224.0.0.1', 'multicast'],
  ['::ffff:255.255.255.255', 'broadcast'], ['64:ff9b::a00:1', 'private'], ['2002:c0a8:101::', 'private'],
];
const PUBLIC = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2a00:1450::1'];

describe('address policy', () => {
  it.each(REFUSED)('refuses %s (%s)', (address, reason) => {
    expect(forbiddenReason(address)).toBe(reason);
  });
  it.each(PUBLIC)('allows public %s', (address) => {
    expect(forbiddenReason(address)).toBeNull();
  });
});

const fakeDns = (addresses: string[]): Resolver => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
const lookupOnce = (lookup: ReturnType<typeof guardedLookup>, all: boolean) => new Promise<{ err: any; result: any }>((resolve) => {
  lookup('hooks.example.test', { all } as any, ((err: any, result: any) => resolve({ err, result })) as any);
});

describe('the connect-time lookup', () => {
  it.each(REFUSED)('refuses a name resolving to %s (%s)', async (address) => {
    for (const all of [true, false]) {
      const { err } = await lookupOnce(guardedLookup({ allowPrivate: false, resolve: fakeDns([address]) }), all);
      expect(err?.message).toMatch(/^refused: hooks\.example\.test resolves to/);
    }
  });

  it('connects only to the public addresses of a name that also resolves to private ones', async () => {
    const { err, result } = await lookupOnce(guardedLookup({ allowPrivate: false, resolve: fakeDns(['10.0.0.1', '8.8.8.8']) }), true);
    expect(err).toBeNull();
    expect(result).toEqual([{ address: '8.8.8.8', family: 4 }]);
  });

  it('lets everything through with allowPrivate', async () => {
    const { err, result } = await lookupOnce(guardedLookup({ allowPrivate: true, resolve: fakeDns(['10.0.0.1']) }), false);
    expect(err).toBeNull();
    expect(result).toBe('10.0.0.1');
  });

  it('a POST to a name that resolves to a refused address fails before any connection, as a refusal', async () => {
    const seen: string[] = [];
    const resolve: Resolver = async (host) => { seen.push(host); return [{ address: '169.254.169.254', family: 4 }]; };
    const r = await postJson('http://metadata.example.test/latest', {}, '{}', { timeoutMs: 2000, allowPrivate: false, resolve });
    expect(seen).toEqual(['metadata.example.test']);
    expect(r).toMatchObject({ status: null, body: null });
    expect(r.error).toMatch(/^refused: metadata\.example\.test resolves to 169\.254\.169\.254 \(link-local\)/);
  });

  it('literal addresses in the URL are refused without a lookup', async () => {
    for (const url of ['http://127.0.0.1:9/x', 'http://[::1]:9/', 'http://[::ffff:10.0.0.1]/', 'https://0.0.0.0/']) {
      const r = await postJson(url, {}, '{}', { timeoutMs: 2000, allowPrivate: false, resolve: () => { throw new Error('no lookup expected'); } });
      expect(r.error).toMatch(/^refused: /);
    }
  });
});

describe('postJson against a local receiver', () => {
  let rx: WebhookReceiver;
  const opts = { timeoutMs: 1000, allowPrivate: true, resolve: fakeDns(['127.0.0.1']) };
  beforeAll(async () => { rx = await startWebhookReceiver({ responseBody: 'x'.repeat(5000) }); });
  afterAll(async () => { await rx.close(); });

  it('signs with Standard Webhooks headers the reference library verifies, for whsec_ and plain secrets', async () => {
    const body = JSON.stringify({ event: 'ping', id: 'evt' });
    const ts = Math.floor(Date.now() / 1000);
    const whsec = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
    expect(new Webhook(whsec).verify(body, signedHeaders(whsec, 'evt_1', ts, body))).toEqual(JSON.parse(body));
    const plain = 'my-signing-secret';
    expect(new Webhook(Buffer.from(plain).toString('base64')).verify(body, signedHeaders(plain, 'evt_1', ts, body))).toEqual(JSON.parse(body));
    expect(() => new Webhook(whsec).verify(body + ' ', signedHeaders(whsec, 'evt_1', ts, body))).toThrow();
  });

  it('2xx succeeds and keeps only the first KiB of the answer; the name goes through the guarded lookup', async () => {
    rx.script('/ok', 200);
    const r = await postJson(`${rx.url.replace('127.0.0.1', 'receiver.example.test')}/ok`, { 'webhook-id': 'e1' }, '{"a":1}', opts);
    expect(r).toMatchObject({ status: 200, error: null });
    expect(r.body).toHaveLength(1024);
    const got = rx.received.at(-1)!;
    expect(got).toMatchObject({ path: '/ok', body: '{"a":1}' });
    expect(got.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': 'e1' });
  });

  it('a 3xx is a failure and the redirect is not followed', async () => {
    const before = rx.count();
    rx.script('/hook', 'redirect');
    const r = await postJson(`${rx.url}/hook`, {}, '{}', opts);
    expect(r).toMatchObject({ status: 301, error: 'redirect not followed (HTTP 301 to /moved)' });
    await new Promise((res) => setTimeout(res, 100));
    expect(rx.count() - before).toBe(1);
    expect(rx.count('/moved')).toBe(0);
  });

  it('500, timeout and a reset connection are failures with their reason', async () => {
    rx.script('/h', 500, 'timeout', 'reset');
    expect(await postJson(`${rx.url}/h`, {}, '{}', opts)).toMatchObject({ status: 500, error: 'HTTP 500' });
    const t0 = Date.now();
    const slow = await postJson(`${rx.url}/h`, {}, '{}', opts);
    expect(slow).toMatchObject({ status: null, error: 'timeout: no response within 1000 ms' });
    expect(Date.now() - t0).toBeLessThan(5000);
    const reset = await postJson(`${rx.url}/h`, {}, '{}', opts);
    expect(reset.status).toBeNull();
    expect(reset.error).toMatch(/^connection: (ECONNRESET|socket hang up)/);
  });
});
