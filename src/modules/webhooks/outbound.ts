import { createHmac } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { forbiddenReason } from './address-policy.js';

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export interface OutboundOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  resolve: Resolver;
}

export const DEFAULT_TIMEOUT_MS = 15_000;
const BODY_LIMIT = 1024;

export const systemResolver: Resolver = (hostname) => new Promise((resolve, reject) => {
  dnsLookup(hostname, { all: true, verbatim: true }, (err, addrs) => (err ? reject(err) : resolve(addrs)));
});

/** Standard Webhooks: `whsec_` secrets carry a base64 key; any other secret is used as its UTF-8 bytes. */
export function signatureKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

export function signedHeaders(secret: string, eventId: string, timestampSec: number, body: string): Record<string, string> {
  const sig = createHmac('sha256', signatureKey(secret)).update(`${eventId}.${timestampSec}.${body}`).digest('base64');
  return { 'webhook-id': eventId, 'webhook-timestamp': String(timestampSec), 'webhook-signature': `v1,${sig}` };
}

export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
}

const refusal = (host: string, address: string, reason: string) =>
  new RefusedAddressError(`refused: ${host} resolves to ${address} (${reason}); set REHEARSAL_WEBHOOK_ALLOW_PRIVATE=true to allow`);

/**
 * The lookup the socket itself uses, so the address checked is the address connected to: a name that
 * resolves to a public address for a validation and a private one a moment later (DNS rebinding) is
 * still refused.
 */
export function guardedLookup(opts: Pick<OutboundOptions, 'allowPrivate' | 'resolve'>): LookupFunction {
  return (hostname, options, callback) => {
    opts.resolve(hostname).then((found) => {
      const usable = opts.allowPrivate ? found : found.filter((a) => forbiddenReason(a.address) === null);
      const wanted = options.family === 4 || options.family === 6 ? usable.filter((a) => a.family === options.family) : usable;
      if (wanted.length === 0) {
        const first = found[0];
        const err = first ? refusal(hostname, first.address, forbiddenReason(first.address) ?? 'no address of the wanted family') : Object.assign(new Error(`dns: no address for ${hostname}`), { code: 'ENOTFOUND' });
        return (callback as any)(err, options.all ? [] : '', 4);
      }
      if (options.all) return (callback as any)(null, wanted);
      return (callback as any)(null, wanted[0].address, wanted[0].family);
    }, (err) => (callback as any)(err, options.all ? [] : '', 4));
  };
}

export interface OutboundResult {
  status: number | null;
  body: string | null;
  durationMs: number;
  error: string | null;
}

function describe(err: any, timeoutMs: number): string {
  if (err instanceof RefusedAddressError) return err.message;
  if (err?.code === 'ETIMEDOUT_WEBHOOK') return `timeout: no response within ${timeoutMs} ms`;
  const code = err?.code ? `${err.code}: ` : '';
  if (err?.code === 'ENOTFOUND' || err?.code === 'EAI_AGAIN') return `dns: ${code}${err.message}`;
  return `connection: ${code}${err?.message ?? String(err)}`;
}

// Postgres text cannot hold NUL; the stored excerpt is for a human to read anyway.
const excerpt = (b: Buffer) => b.subarray(0, BODY_LIMIT).toString('utf8').replace(/\u0000/g, '');

/**
 * One POST. Redirects are not followed (a 3xx is a failed attempt), the whole exchange is bounded by
 * the timeout, and only the first KiB of the answer is read and kept.
 */
export function postJson(rawUrl: string, headers: Record<string, string>, body: string, opts: OutboundOptions): Promise<OutboundResult> {
  const started = performance.now();
  const done = (r: Omit<OutboundResult, 'durationMs'>): OutboundResult => ({ ...r, durationMs: Math.round(performance.now() - started) });
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return Promise.resolve(done({ status: null, body: null, error: 'invalid url' }));
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // a literal address never goes through lookup, so it is checked here
  if (isIP(host) && !opts.allowPrivate) {
    const reason = forbiddenReason(host);
    if (reason) return Promise.resolve(done({ status: null, body: null, error: `refused: ${host} is a ${reason} address; set REHEARSAL_WEBHOOK_ALLOW_PRIVATE=true to allow` }));
  }
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: Omit<OutboundResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(r));
    };
    const req = lib.request(url, {
      method: 'POST',
      agent: false,
      lookup: guardedLookup(opts),
      headers: { 'content-type': 'application/json', 'user-agent': 'Rehearsal-Webhooks/1', 'content-length': Buffer.byteLength(body), ...headers },
    }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const status = res.statusCode ?? 0;
      const verdict = () => (status >= 200 && status < 300 ? null
        : status >= 300 && status < 400 ? `redirect not followed (HTTP ${status}${res.headers.location ? ` to ${res.headers.location}` : ''})`
          : `HTTP ${status}`);
      const end = () => {
        finish({ status, body: excerpt(Buffer.concat(chunks)), error: verdict() });
        req.destroy();
      };
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        size += c.length;
        if (size >= BODY_LIMIT) end();
      });
      res.on('end', end);
      res.on('error', end);
      res.on('aborted', end);
    });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT_WEBHOOK' })), opts.timeoutMs);
    req.on('error', (err) => finish({ status: null, body: null, error: describe(err, opts.timeoutMs) }));
    req.end(body);
  });
}
