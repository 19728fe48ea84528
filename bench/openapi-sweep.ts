/**
 * A sweep from outside: N requests (default 10,000) generated from the service's own OpenAPI document, fired
 * at an embedded server (PGlite, API only) over real sockets, in the mix a careless or hostile client sends:
 * valid requests, bodies built from each operation's schema with wrong, missing and extra fields, no or bad
 * credentials, a cookie session without the CSRF header, unknown and malformed path ids, junk queries,
 * non-JSON and oversized bodies, other methods on known paths, and what Node's parser rejects (unknown
 * methods, malformed request lines, oversized headers). Counts three things, each to be 0:
 *  - 5xx answers;
 *  - answers outside the envelope (no x-request-id; an error body that is not {error, code, details?} with a
 *    code of the closed list answered with that code's status);
 *  - answers of an operation whose status its OpenAPI `responses` do not list (or whose error body does not
 *    match the documented schema).
 *
 *   npx tsx bench/openapi-sweep.ts [--requests 10000] [--concurrency 8] [--seed 1]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/server.js';
import { documentChecker } from '../test/contract/documented.js';
import { createFixtures, envelopeProblems, operationsOf, urlOf, type Fixtures, type Operation } from '../test/contract/routes.js';
import type { TestContext } from '../test/harness.js';
import { exchange, request } from '../test/http/raw-socket.js';
import { bodyFor, makeRandom } from './openapi-values.js';

const { values } = parseArgs({ options: {
  requests: { type: 'string', default: '10000' }, concurrency: { type: 'string', default: '8' }, seed: { type: 'string', default: '1' },
} });
const N = Number(values.requests);
const rnd = makeRandom(Number(values.seed));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-sweep-'));
const config = loadConfig({ ...process.env, REHEARSAL_DATA_DIR: dir, REHEARSAL_RATE_LIMIT_PER_MINUTE: '1000000', REHEARSAL_MAX_CONCURRENT_RUNS: '10000', PORT: '0', LOG_LEVEL: 'warn' });
let key = '';
const svc = await startService(config, { api: true, worker: false, print: (l) => { const m = /^\s+(sk_\w+)/.exec(l); if (m) key = m[1]; } });
const base = svc.url!;
const port = Number(new URL(base).port);

type Res = { status: number; body: any; headers: Record<string, any> };
async function call(method: string, url: string, opts: { body?: unknown; key?: string | null; headers?: Record<string, string> } = {}): Promise<Res> {
  const headers: Record<string, string> = { ...opts.headers };
  const k = opts.key === undefined ? key : opts.key;
  if (k) headers.authorization = `Bearer ${k}`;
  let body: string | undefined;
  // fetch sends no body with GET or HEAD
  if (opts.body !== undefined && method !== 'GET' && method !== 'HEAD') { body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body); headers['content-type'] ??= 'application/json'; }
  const res = await fetch(base + url, { method, headers, body });
  const text = await res.text();
  let parsed: any = text;
  try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON: the envelope check says so */ }
  return { status: res.status, body: parsed, headers: { ...Object.fromEntries(res.headers), 'set-cookie': res.headers.getSetCookie() } };
}

const doc = await (await fetch(`${base}/api/v1/openapi.json`)).json();
const ops = operationsOf(doc);
const documented = documentChecker(doc);
const ctx = { call } as unknown as TestContext;
let own: Fixtures = await createFixtures(ctx, key, 'sweep');
let generation = 0;

interface Sent { op: Operation | null; res: Res; what: string; headOnly?: boolean }
const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
const ID_VALUES = () => [crypto.randomUUID(), '', 'not-a-uuid', 'TR-1', 'TR-99999999999999999999', '%00', '%ZZ', 'z'.repeat(300), '..', crypto.randomUUID().toUpperCase()];

/** One request for `op`, of a randomly chosen kind. */
async function one(op: Operation): Promise<Sent> {
  const query = op.spec?.query?.(own) ?? '';
  const valid = () => op.spec?.body?.(own, `sweep-${crypto.randomUUID().slice(0, 8)}`);
  const url = urlOf(op, own, {}, query);
  const kind = pick(['valid', 'schema', 'schema', 'auth', 'csrf', 'ids', 'query', 'raw', 'large', 'method', 'parser']);
  const body = () => (op.bodySchema ? bodyFor(op.bodySchema, doc, rnd, valid()) : valid());
  switch (kind) {
    case 'valid': return { op, what: kind, res: await call(op.method, url, { body: valid() }) };
    case 'schema': return { op, what: kind, res: await call(op.method, url, { body: body() }) };
    case 'auth': return { op, what: kind, res: await call(op.method, url, { key: pick([null, 'sk_live_x', `sk_live_${'A'.repeat(40)}`, 'Basic abc']), body: valid() }) };
    case 'csrf': return { op, what: kind, res: await call(op.method, url, { key: null, headers: { cookie: own.cookie }, body: valid() }) };
    case 'ids': {
      const ids = Object.fromEntries(op.pathParams.map((p) => [p, pick(ID_VALUES())]));
      return { op, what: kind, res: await call(op.method, urlOf(op, own, ids, query), { body: valid() }) };
    }
    case 'query': {
      const junk = pick(['limit=abc', 'limit=0', 'offset=-1', 'limit=1e3', 'q=%00', 'status=nope', 'agent_id=x', 'test_run_id=TR-0', 'limit=1000', 'foo=bar', '%ZZ=1']);
      return { op, what: kind, res: await call(op.method, urlOf(op, own, {}, [query, junk].filter(Boolean).join('&')), { body: valid() }) };
    }
    case 'raw': return { op, what: kind, res: await call(op.method, url, { body: pick(['{', '[1]', 'null', '"x"', '{"__proto__":{}}', 'name=x']), headers: rnd() < 0.2 ? { 'content-type': 'text/plain' } : {} }) };
    case 'large': return { op, what: kind, res: await call(op.method, url, { body: JSON.stringify({ x: 'a'.repeat(1024 * 1024 + 1) }) }) };
    case 'method': {
      const method = pick(['OPTIONS', 'PROPFIND', 'PUT', 'PATCH', 'DELETE', 'POST', 'GET', 'HEAD', 'SEARCH']);
      const res = await call(method, url);
      // a HEAD answer has no body by definition: only its status and headers can be checked
      return { op: null, what: `method ${method}`, res, headOnly: method === 'HEAD' };
    }
    default: {
      const auth = { authorization: `Bearer ${key}` };
      const variant = pick(['header', 'method', 'line']);
      const text = variant === 'header' ? request(op.method, url, { ...auth, 'x-big': 'h'.repeat(20_000) })
        : variant === 'method' ? request('FOO', url, auth) : `${op.method} ${url} HTTP/7.0\r\n\r\n`;
      const { responses } = await exchange(port, [text]);
      const res: Res = responses[0] ?? { status: 0, body: null, headers: {} };
      // an oversized header on a documented method is still that operation's answer
      return { op: variant === 'header' ? op : null, what: `parser-${variant}`, res };
    }
  }
}

const counts = { requests: 0, fiveXx: 0, outsideEnvelope: 0, undocumented: 0 };
const statuses = new Map<string, number>();
const examples: string[] = [];
const note = (s: string) => { if (examples.length < 20) examples.push(s); };
let next = 0;
const started = Date.now();
await Promise.all(Array.from({ length: Number(values.concurrency) }, async () => {
  while (next < N) {
    // the valid DELETEs remove the fixtures: a fresh set now and then keeps valid requests reaching live resources
    if (++next % 400 === 0) own = await createFixtures(ctx, key, `sweep-${++generation}`);
    const op = pick(ops);
    const { op: target, res, what, headOnly } = await one(op);
    counts.requests++;
    const byKind = `${what.split(' ')[0]} ${res.status}`;
    statuses.set(byKind, (statuses.get(byKind) ?? 0) + 1);
    const label = `${what} ${op.label} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 160)}`;
    if (res.status >= 500 || res.status === 0) { counts.fiveXx++; note(`5xx: ${label}`); }
    // a HEAD answer has no body by definition: only its x-request-id can be checked
    const env = res.status === 0 ? ['no answer'] : envelopeProblems(headOnly ? { ...res, status: 200 } : res);
    if (env.length) { counts.outsideEnvelope++; note(`envelope: ${label}: ${env.join('; ')}`); }
    const doc = target ? documented.problems(target.method, target.path, res) : [];
    if (doc.length) { counts.undocumented++; note(`undocumented: ${doc.join('; ')}`); }
  }
}));

console.log(JSON.stringify({ ...counts, seconds: Math.round((Date.now() - started) / 1000), operations: ops.length, answers: Object.fromEntries([...statuses].sort()) }, null, 2));
for (const e of examples) console.log(e);
await svc.stop();
fs.rmSync(dir, { recursive: true, force: true });
process.exit(counts.fiveXx + counts.outsideEnvelope + counts.undocumented === 0 ? 0 : 1);
