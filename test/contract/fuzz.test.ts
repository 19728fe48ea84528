/**
 * Property-based robustness: random and malformed input at every route of the OpenAPI document (and the
 * 405 stand-ins of its paths), with a valid key. Whatever comes in:
 *  - never a 5xx;
 *  - every 4xx body is exactly the envelope {error, code, details?} with a code from the closed list of
 *    decisions §1 (and that code's status);
 *  - every response carries x-request-id;
 *  - an operation of the document answers only statuses its OpenAPI `responses` list, with bodies that match
 *    the documented schema (the 405 stand-ins are not operations).
 *
 * One property per route and input dimension (JSON body, deep nesting, raw bytes, query string, path ids,
 * and over-long / badly encoded path segments that the router sees first), so one defect does not hide
 * another. Each property runs a fixed corpus of known-bad inputs first (fast-check `examples`), then random
 * ones. fast-check prints the seed and the shrunk request on failure; rerun with CONTRACT_FUZZ_SEED=<seed>
 * (and CONTRACT_FUZZ_RUNS=<n>, default 40 random requests per body row) to reproduce.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { providerConfigJsonSchemas } from '../../src/providers/configs.js';
import { createTestContext, type TestContext } from '../harness.js';
import {
  createFixtures, enumerateOperations, envelopeProblems, fixtureIds, idOf, localAdapters, openApiDocument, resolveRef, urlOf, withOtherMethods,
  type Fixtures, type Operation,
} from './routes.js';
import { documentChecker } from './documented.js';

const DOC = await openApiDocument();
const DOCUMENTED = documentChecker(DOC);
const OPS = withOtherMethods(await enumerateOperations());
const RUNS = Number(process.env.CONTRACT_FUZZ_RUNS ?? 40);
const SEED = process.env.CONTRACT_FUZZ_SEED ? Number(process.env.CONTRACT_FUZZ_SEED) : undefined;

// ---------------------------------------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------------------------------------

/** Filled in beforeAll: real ids of the caller's organization, so that random input also reaches the services. */
const realIds: string[] = [];
const realId = () => fc.nat().map((i) => realIds[i % realIds.length]);

const NASTY_STRINGS = [
  '', ' ', '  padded  ', '\n', '\t', '\u0000', 'a\u0000b', '\ud800', '\udfff', '\uffff', '\ufeff', '\u202e', '🙂', 'é', 'İ', 'ß',
  '<script>alert(1)</script>', "' OR 1=1 --", '"; drop table agents; --', '%', '_', '\\', '"', '${x}', '{{x}}', 'null', 'true', 'false',
  '0', '-1', '1e309', 'NaN', 'Infinity', 'TR-1', 'TR-', '__proto__', 'constructor', 'prototype', 'sk_live_', '*', '.*', '(a+)+$', '[', '\\u0000',
  'a'.repeat(201), 'b'.repeat(2001), 'c'.repeat(5000),
];
const nastyString = fc.constantFrom(...NASTY_STRINGS);
const BAD_CHARS = ['\u0000', '\ud800', '\udc00', '\u202e', '\u001b', '\uffff'];
const anyString = fc.oneof(
  { arbitrary: nastyString, weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 1 },
  { arbitrary: fc.string({ maxLength: 300 }), weight: 1 },
);
const NASTY_NUMBERS = [0, -0, 1, -1, 2, 49, 50, 51, 99, 100, 101, 499, 500, 501, 1000, 1001, 2 ** 31, -(2 ** 31), 2 ** 53, 2 ** 53 + 2, 1e21, 1e300, -1e300,
  0.5, 1.5, 0.75, 1.0000001, Number.MAX_VALUE, Number.MIN_VALUE, Number.EPSILON];
const anyNumber = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY_NUMBERS), weight: 3 },
  { arbitrary: fc.integer(), weight: 2 },
  { arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }), weight: 1 },
);

/** Nested objects or arrays `n` levels deep. */
const deep = fc.tuple(fc.integer({ min: 10, max: 3000 }), fc.boolean()).map(([n, arrays]) => {
  let v: unknown = 'bottom';
  for (let i = 0; i < n; i++) v = arrays ? [v] : { a: v };
  return v;
});
const randomJson: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 6 },
  { arbitrary: anyString, weight: 2 },
  { arbitrary: anyNumber, weight: 2 },
  { arbitrary: fc.constantFrom(null, true, false, [], {}), weight: 1 },
  { arbitrary: deep, weight: 1 },
);

const uuidLike = fc.oneof(fc.uuid(), fc.uuid().map((u) => u.toUpperCase()), fc.constant('00000000-0000-0000-0000-000000000000'));
const humanRunId = fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 40n }).map((n) => `TR-${n}`), fc.constantFrom('TR-1', 'tr-1', 'TR-', 'TR-0', 'TR--1', 'TR-1.5', 'TR-١'));
const idLike = fc.oneof({ arbitrary: realId(), weight: 4 }, { arbitrary: uuidLike, weight: 2 }, { arbitrary: humanRunId, weight: 1 }, { arbitrary: anyString, weight: 1 });

/** URLs whose hosts are loopback (in several spellings) or malformed: a delivery attempt never leaves the machine. */
const urlLike = fc.oneof(
  fc.constantFrom('http://127.0.0.1:9/x', 'https://127.0.0.1/hook', 'http://localhost:1/', 'http://[::1]:9/', 'http://127.1/', 'http://2130706433/',
    'http://[::ffff:127.0.0.1]/', 'http://user:pass@127.0.0.1/', 'ftp://127.0.0.1/', 'javascript:alert(1)', 'http://', 'http:// 127.0.0.1', '/relative',
    'http://127.0.0.1:99999/', 'HTTP://127.0.0.1/UP'),
  fc.tuple(fc.constantFrom('http://127.0.0.1:9/', 'https://127.0.0.1/'), fc.string({ unit: 'binary', maxLength: 40 })).map(([a, b]) => a + b),
  fc.integer({ min: 1, max: 3000 }).map((n) => `http://127.0.0.1/${'p'.repeat(n)}`),
);
const dateLike = fc.oneof(
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom('2099-01-01T00:00:00Z', '2099-01-01T00:00:00.000Z', '2099-02-30T00:00:00Z', '9999-12-31T23:59:59.999Z', '0001-01-01T00:00:00Z',
    '2030-06-30T23:59:60Z', '2099-01-01T00:00:00+14:00', '2099-01-01', 'now', '2000-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z'),
);

// ---------------------------------------------------------------------------------------------------------
// Values from a JSON schema (the OpenAPI document's): mostly well-typed, sometimes anything
// ---------------------------------------------------------------------------------------------------------

const REF_FIELD = /(^|_)ids?$/;

/** Percent-encodes the UTF-8 bytes of `s` (lone surrogates become U+FFFD; encodeURIComponent would throw). */
const pct = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

function valueFor(schema: any, name: string, depth: number): fc.Arbitrary<unknown> {
  if (depth > 6) return randomJson;
  return fc.oneof({ arbitrary: typedFor(resolveRef(DOC, schema) ?? {}, name, depth), weight: 6 }, { arbitrary: randomJson, weight: 1 });
}

function typedFor(s: any, name: string, depth: number): fc.Arbitrary<unknown> {
  if (name.endsWith('_ids')) return fc.array(idLike, { maxLength: 4 });
  if (REF_FIELD.test(name) && (s.type === 'string' || !s.type)) return idLike;
  if (name === 'config' && !s.type) {
    return fc.oneof(...Object.values(providerConfigJsonSchemas).map((js) => typedFor(js, '', depth + 1)));
  }
  if (Array.isArray(s.enum)) return fc.oneof({ arbitrary: fc.constantFrom(...s.enum), weight: 4 }, { arbitrary: anyString, weight: 1 });
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches)) return fc.oneof(...branches.map((b: any) => typedFor(resolveRef(DOC, b) ?? {}, name, depth + 1)));
  if (Array.isArray(s.allOf) && s.allOf.some((x: any) => x.then)) {
    // a union keyed on a discriminator (if/then): generate one branch at a time
    return fc.oneof(...s.allOf.filter((x: any) => x.then).map((x: any) => typedFor(x.then, name, depth + 1)));
  }
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string': {
      if (s.format === 'date-time') return dateLike;
      if (s.format === 'uuid') return idLike;
      if (name === 'url' || name === 'base_url' || /http/i.test(String(s.pattern ?? ''))) return urlLike;
      const sized: fc.Arbitrary<string>[] = [fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 40, 40) })];
      if (s.maxLength) sized.push(fc.constantFrom('x'.repeat(s.maxLength), 'y'.repeat(s.maxLength + 1)));
      // a bad character inside an otherwise ordinary value: a NUL, a lone surrogate, an RTL override…
      const spiked = fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.constantFrom(...BAD_CHARS), fc.string({ maxLength: 5 })).map(([a, b, c]) => `${a}${b}${c}`);
      return fc.oneof({ arbitrary: anyString, weight: 2 }, { arbitrary: spiked, weight: 2 }, ...sized.map((arbitrary) => ({ arbitrary, weight: 1 })));
    }
    case 'integer':
    case 'number': {
      const edges = [s.minimum, s.maximum, s.exclusiveMinimum, s.exclusiveMaximum].filter((x) => typeof x === 'number').flatMap((x: number) => [x - 1, x, x + 1, x + 0.5]);
      return edges.length ? fc.oneof(anyNumber, fc.constantFrom(...edges)) : anyNumber;
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.oneof(
        { arbitrary: fc.array(valueFor(s.items ?? {}, name, depth + 1), { maxLength: Math.min(s.maxItems ?? 4, 4) }), weight: 4 },
        { arbitrary: fc.constant(Array.from({ length: (s.maxItems ?? 100) + 1 }, () => 'x')), weight: 1 },
      );
    case 'object':
    default: {
      const props = s.properties ?? {};
      if (Object.keys(props).length === 0) {
        if (type === 'object') return fc.dictionary(anyString, randomJson, { maxKeys: 4 });
        return randomJson; // no schema at all: anything
      }
      const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, valueFor(v, k, depth + 1)]));
      const known = fc.record(model, { requiredKeys: [] });
      // sometimes every required field, sometimes extra (unknown) fields
      const extras = fc.dictionary(fc.oneof(anyString, fc.constantFrom('extra', 'id', 'org_id', 'organization_id', 'is_builtin', 'created_at')), randomJson, { maxKeys: 2 });
      return fc.tuple(known, fc.option(extras, { freq: 4 })).map(([k, e]) => (e ? { ...k, ...e } : k));
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------------

interface Req { method: string; url: string; body?: unknown; raw?: { contentType: string; bytes: Uint8Array } }

/**
 * Bodies: a valid body with one field replaced, removed or added (so the rest gets past validation and the
 * odd value reaches the service and the database), a body built from the schema, or anything at all.
 */
function bodyArb(op: Operation, own: Fixtures | null): fc.Arbitrary<unknown> {
  const typed = op.bodySchema ? valueFor(op.bodySchema, '', 0) : randomJson;
  const junk = fc.oneof(fc.jsonValue({ maxDepth: 4 }), anyString, anyNumber, fc.constant(null), fc.array(randomJson, { maxLength: 3 }));
  const props = Object.entries<any>(op.bodySchema?.properties ?? {});
  const valid = op.spec?.body && own ? () => op.spec!.body!(own, `fuzz-${Math.random().toString(36).slice(2, 8)}`) as Record<string, unknown> : null;
  if (!valid || props.length === 0) return fc.oneof({ arbitrary: typed, weight: 8 }, { arbitrary: junk, weight: 1 }, { arbitrary: deep, weight: 1 });
  const edit = fc.oneof(
    { arbitrary: fc.oneof(...props.map(([k, v]) => valueFor(v, k, 1).map((value) => ({ k, value, drop: false })))), weight: 6 },
    { arbitrary: fc.constantFrom(...props.map(([k]) => k)).map((k) => ({ k, value: undefined, drop: true })), weight: 1 },
    { arbitrary: fc.tuple(fc.oneof(anyString, fc.constantFrom('id', 'org_id', 'is_builtin', 'created_at', 'key')), randomJson).map(([k, value]) => ({ k, value, drop: false })), weight: 1 },
  );
  const mutated = fc.array(edit, { minLength: 1, maxLength: 2 }).map((edits) => {
    const b: Record<string, unknown> = valid();
    for (const e of edits) { if (e.drop) delete b[e.k]; else b[e.k] = e.value; }
    return b;
  });
  return fc.oneof({ arbitrary: mutated, weight: 5 }, { arbitrary: typed, weight: 3 }, { arbitrary: junk, weight: 1 }, { arbitrary: deep, weight: 1 });
}

const RAW_TEXTS = [
  '{', '[', '{"a":', '{"a":1,}', "{'a':1}", '{a:1}', 'NaN', '1e400', '{"limit":1e400}', '\ufeff{}', '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{"x":1}}}', '"\\ud800"', '{"name":"\\u0000"}', '{"name":"\\ud800"}', 'null', 'true', '""', '0', ' ', '\n\n',
  '{}{}', '{"a":1}garbage', '[1,2', '\u0000', '{"a":"\\x41"}', '{"a":01}', '{"a":.5}', '{"a":+1}', '{"a":-}', '[[[[[[[[[[[[[[[[[[[[', '[]',
];
const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON', 'application/json; charset=latin1', 'application/json; charset=utf-16'];

function rawArb(op: Operation): fc.Arbitrary<{ contentType: string; bytes: Uint8Array }> {
  const enc = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
  const truncatedJson = fc.tuple(bodyArb(op, null), fc.nat()).map(([v, cut]) => {
    const s = JSON.stringify(v) ?? 'null';
    return enc(s.slice(0, s.length > 1 ? cut % s.length : 0));
  });
  const bytes = fc.oneof(
    { arbitrary: fc.uint8Array({ maxLength: 200 }), weight: 3 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 100 }).map(enc), weight: 2 },
    { arbitrary: fc.constantFrom(...RAW_TEXTS).map(enc), weight: 3 },
    { arbitrary: truncatedJson, weight: 3 },
    { arbitrary: fc.integer({ min: 1000, max: 200_000 }).map((n) => enc('['.repeat(n))), weight: 1 },
    { arbitrary: fc.integer({ min: 1000, max: 50_000 }).map((n) => enc(`${'['.repeat(n)}${']'.repeat(n)}`)), weight: 1 },
  );
  return fc.record({ contentType: fc.oneof({ arbitrary: fc.constant('application/json'), weight: 5 }, { arbitrary: fc.constantFrom(...CONTENT_TYPES), weight: 1 }), bytes });
}

const RAW_QUERY_VALUES = ['', '1', '0', '-1', '1.5', '1.0', '1e3', '1e300', '99999999999999999999', '9223372036854775807', '9223372036854775808', '0x10', '+5', '%205',
  'NaN', 'Infinity', 'true', 'null', '%', '%Z', '%ZZ', '%E0%A4%A', '%00', '%C0%AF', '%FF', '%2F', '%26', '%3D', 'a%00b', '%F0%9F%99%82', 'pending', 'completed',
  'running', 'failed', 'error', 'passed', 'canceled', 'demo', 'ping', 'provider_4', 'TR-1', '00000000-0000-0000-0000-000000000000'];

const NUMERIC_QUERY_VALUES = ['', '1', '0', '-1', '-0', '1.5', '1.0', '1e3', '1e300', '99999999999999999999', '9223372036854775807', '9223372036854775808',
  '2147483648', '4294967296', '0x10', '+5', '%205', '5%20', '1_000', 'NaN', 'Infinity', '-Infinity', 'true', 'null', '100', '101', '500', '501'];

/** A value for one query parameter, shaped by its name and schema. */
function queryValueArb(name: string, schema: any): fc.Arbitrary<string> {
  const generic = fc.oneof(
    { arbitrary: fc.constantFrom(...RAW_QUERY_VALUES), weight: 3 },
    { arbitrary: anyString.map(pct), weight: 3 },
    { arbitrary: realId(), weight: 1 },
  );
  if (name === 'limit' || name === 'offset' || schema?.type === 'integer' || schema?.type === 'number') {
    return fc.oneof({ arbitrary: fc.constantFrom(...NUMERIC_QUERY_VALUES), weight: 4 }, { arbitrary: anyNumber.map(String), weight: 2 }, { arbitrary: fc.bigInt().map(String), weight: 1 }, { arbitrary: generic, weight: 1 });
  }
  if (schema?.type === 'boolean') return fc.oneof(fc.constantFrom('true', 'false', '1', '0', 'yes', 'TRUE', ''), generic);
  if (Array.isArray(schema?.enum)) return fc.oneof({ arbitrary: fc.constantFrom(...schema.enum.map(String)), weight: 2 }, { arbitrary: generic, weight: 1 });
  if (REF_FIELD.test(name)) return fc.oneof({ arbitrary: realId(), weight: 3 }, { arbitrary: uuidLike, weight: 1 }, { arbitrary: humanRunId, weight: 1 }, { arbitrary: generic, weight: 1 });
  return generic;
}

/** A query string: the route's valid query (if any) plus one to four parameters, repeated ones included. */
function queryArb(op: Operation, validQuery: string): fc.Arbitrary<string> {
  const known = new Map<string, any>([['limit', { type: 'integer' }], ['offset', { type: 'integer' }], ['status', {}], ...op.queryParams.map((q) => [q.name, q.schema] as [string, any])]);
  const knownPair = fc.oneof(...[...known].map(([n, schema]) => queryValueArb(n, schema).map((v) => `${n}=${v}`)));
  const oddPair = fc.oneof(
    fc.tuple(fc.constantFrom('foo', 'limit[]', 'a[b]', '__proto__', 'constructor', 'LIMIT', '', 'test_run_id', 'agent_id', 'q', 'passed', 'event'), fc.constantFrom(...RAW_QUERY_VALUES)).map(([n, v]) => `${n}=${v}`),
    fc.tuple(anyString.map(pct), anyString.map(pct)).map(([n, v]) => `${n}=${v}`),
    fc.constantFrom(...known.keys()), // a bare name
    fc.constantFrom('&', '&&', '=', '==', '?', '#frag', '%', '%ZZ=1'),
  );
  const pairs = fc.array(fc.oneof({ arbitrary: knownPair, weight: 6 }, { arbitrary: oddPair, weight: 1 }), { minLength: 1, maxLength: 4 });
  return fc.tuple(fc.boolean(), pairs).map(([keepValid, ps]) => [...(keepValid && validQuery ? [validQuery] : []), ...ps].join('&'));
}

/** Path segments a client could send in earnest: ids, garbage, unicode — percent-encoded, at most 200 characters. */
function pathValueArb(): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: idLike.map(pct), weight: 8 },
    { arbitrary: fc.constantFrom('..', '.', '%2e%2e', '%2F', 'a%2Fb', '%00', 'a%20b', '%20', '%F0%9F%99%82', 'TR-%31', '%25', '%2525'), weight: 1 },
  ).map((s) => s.slice(0, 200));
}

/** What the router sees before any handler: over-long segments and malformed percent-encoding. */
function routerPathValueArb(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.integer({ min: 150, max: 5000 }).map((n) => 'z'.repeat(n)),
    fc.constantFrom('%ZZ', '%', '%Z', '%E0%A4%A', '%C0%AF', '%FF', '%C3', '%ED%A0%80', 'a%'), // not UTF-8 / not percent-encoding
  );
}

async function send(t: TestContext, r: Req) {
  if (r.raw) {
    const res = await t.app.inject({
      method: r.method as any, url: r.url, payload: Buffer.from(r.raw.bytes),
      headers: { authorization: `Bearer ${t.key}`, 'content-type': r.raw.contentType },
    });
    let body: unknown = res.body;
    try { body = res.body ? JSON.parse(res.body) : null; } catch { /* not JSON: the envelope check reports it */ }
    return { status: res.statusCode, body, headers: res.headers as Record<string, unknown> };
  }
  return t.call(r.method, r.url, { body: r.body });
}

function describeReq(r: Req): string {
  const short = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}… (${s.length} chars)` : s);
  if (r.raw) return `${r.method} ${short(r.url)} [${r.raw.contentType}] raw ${short(JSON.stringify(Buffer.from(r.raw.bytes).toString('latin1')))}`;
  return `${r.method} ${short(r.url)}${r.body === undefined ? '' : ` body ${short(JSON.stringify(r.body) ?? 'undefined')}`}`;
}

async function check(t: TestContext, r: Req, op: Operation) {
  const res = await send(t, r);
  const problems = envelopeProblems(res);
  if (!op.methodNotAllowed) problems.push(...DOCUMENTED.problems(op.method, op.path, res));
  if (res.status >= 500) problems.unshift(`HTTP ${res.status}`);
  if (res.status < 200) problems.unshift(`HTTP ${res.status}`);
  if (problems.length > 0) {
    throw new Error(`${describeReq(r)} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}: ${problems.join('; ')}`);
  }
}

/** Paths to every object or array below the root of `v`. */
function containerPaths(v: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (v === null || typeof v !== 'object') return [];
  const out: (string | number)[][] = prefix.length ? [prefix] : [];
  for (const [k, x] of Object.entries(v)) out.push(...containerPaths(x, [...prefix, Array.isArray(v) ? Number(k) : k]));
  return out;
}

/** Stand-in ids, only to see the shape of a route's valid body while the rows are listed. */
const PLACEHOLDER_FIXTURES = new Proxy({}, { get: () => '00000000-0000-7000-8000-000000000000' }) as unknown as Fixtures;

// ---------------------------------------------------------------------------------------------------------
// The properties: one row per route and dimension
// ---------------------------------------------------------------------------------------------------------

type Dimension = 'body' | 'deep' | 'raw' | 'query' | 'path' | 'router' | 'any';
interface Row { label: string; op: Operation; dim: Dimension; runs: number }

const takesBody = (op: Operation) => op.bodySchema !== null || ['POST', 'PUT', 'PATCH', 'DELETE'].includes(op.method);
const ROWS: Row[] = [];
for (const op of OPS) {
  const few = Math.max(3, Math.ceil(RUNS / 8));
  if (op.pathParams.length) ROWS.push({ label: `${op.label}${op.methodNotAllowed ? ' (405)' : ''} · over-long / badly encoded path`, op, dim: 'router', runs: few });
  if (op.methodNotAllowed) { ROWS.push({ label: `${op.label} (405) · anything`, op, dim: 'any', runs: few }); continue; }
  // RUNS random requests per route in all, split over the dimensions it has (plus the fixed corpus)
  if (takesBody(op)) ROWS.push({ label: `${op.label} · body`, op, dim: 'body', runs: RUNS }, { label: `${op.label} · raw bytes`, op, dim: 'raw', runs: Math.ceil(RUNS / 3) });
  // the deep-nesting corpus only (random bodies already nest up to 3000 levels)
  const sample = op.spec?.body?.(PLACEHOLDER_FIXTURES, 'x');
  if (sample && containerPaths(sample).length > 0) ROWS.push({ label: `${op.label} · deep nesting`, op, dim: 'deep', runs: 0 });
  ROWS.push({ label: `${op.label} · query`, op, dim: 'query', runs: Math.ceil((RUNS * 2) / 3) });
  if (op.pathParams.length) ROWS.push({ label: `${op.label} · path ids`, op, dim: 'path', runs: Math.ceil((RUNS * 2) / 3) });
}
// destructive routes last, so that the other rows keep reaching live resources
ROWS.sort((a, b) => Number(a.op.method === 'DELETE') - Number(b.op.method === 'DELETE'));

function requestArb(row: Row, own: Fixtures): fc.Arbitrary<Req> {
  const { op } = row;
  const validQuery = op.spec?.query?.(own) ?? '';
  const fixedUrl = urlOf(op, own, {}, validQuery);
  const body = () => (op.spec?.body ? op.spec.body(own, `fuzz-${Math.random().toString(36).slice(2, 8)}`) : undefined);
  switch (row.dim) {
    case 'deep':
    case 'body':
      return bodyArb(op, own).map((b) => ({ method: op.method, url: fixedUrl, body: b }));
    case 'raw':
      return rawArb(op).map((raw) => ({ method: op.method, url: fixedUrl, raw }));
    case 'query':
      return queryArb(op, validQuery).map((q) => ({ method: op.method, url: urlOf(op, own, {}, q), body: body() }));
    case 'path':
      return fc.tuple(...op.pathParams.map(() => pathValueArb())).map((vals) => ({
        method: op.method, url: urlOf(op, own, Object.fromEntries(op.pathParams.map((p, i) => [p, vals[i]])), validQuery), body: body(),
      }));
    case 'router':
      // one parameter at a time (the others valid), so the report names the segment
      return fc.tuple(fc.nat({ max: op.pathParams.length - 1 }), routerPathValueArb()).map(([i, v]) => ({
        method: op.method, url: urlOf(op, own, { [op.pathParams[i]]: v }, validQuery), body: body(),
      }));
    case 'any':
      return fc.tuple(fc.tuple(...op.pathParams.map(() => pathValueArb())), queryArb(op, ''), fc.option(bodyArb(op, null))).map(([vals, q, b]) => ({
        method: op.method, url: urlOf(op, own, Object.fromEntries(op.pathParams.map((p, i) => [p, vals[i]])), q), body: b ?? undefined,
      }));
  }
}

/**
 * Known-bad inputs run first on every row (fast-check `examples`), so the classic classes are always tried,
 * not only when the dice land on them: each body field set to a NUL-containing string, a huge number, null and
 * a wrong type, and every object or array of a valid body replaced by 5000 levels of nesting; each query
 * parameter set to a NUL-containing string, a 20-digit number, 1e300 and ""; each path parameter set to
 * malformed percent-encoding, encoded invalid UTF-8 and over-long values.
 */
function corpus(row: Row, own: Fixtures): Req[] {
  const { op } = row;
  const validQuery = op.spec?.query?.(own) ?? '';
  const url = urlOf(op, own, {}, validQuery);
  const valid = () => (op.spec?.body ? (op.spec.body(own, `corpus-${Math.random().toString(36).slice(2, 8)}`) as Record<string, unknown>) : undefined);
  const out: Req[] = [];
  if (row.dim === 'body') {
    for (const k of Object.keys(op.bodySchema?.properties ?? {})) {
      for (const v of ['a\u0000b', 1e300, null, { nested: true }]) out.push({ method: op.method, url, body: { ...(valid() ?? {}), [k]: v } });
    }
  }
  if (row.dim === 'deep') {
    // 5000 levels of nesting in place of each object or array of the valid body, nested ones included
    // (sent as text: JSON.stringify itself would run out of stack)
    const base = valid()!;
    for (const path of containerPaths(base)) {
      const marked = structuredClone(base) as any;
      let at = marked;
      for (const seg of path.slice(0, -1)) at = at[seg];
      at[path[path.length - 1]] = '\u0000DEEP\u0000';
      const text = JSON.stringify(marked).replace('"\\u0000DEEP\\u0000"', `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`);
      out.push({ method: op.method, url, raw: { contentType: 'application/json', bytes: new Uint8Array(Buffer.from(text, 'utf8')) } });
    }
  }
  if (row.dim === 'query') {
    const names = new Set(['limit', 'offset', ...op.queryParams.map((q) => q.name)]);
    for (const n of names) {
      for (const v of ['a%00b', '99999999999999999999', '1e300', '']) {
        out.push({ method: op.method, url: urlOf(op, own, {}, [validQuery, `${n}=${v}`].filter(Boolean).join('&')), body: valid() });
      }
    }
  }
  if (row.dim === 'path') {
    for (const p of op.pathParams) {
      for (const v of ['%00', 'TR-99999999999999999999', idOf(own, op.spec!.params![p]).toUpperCase()]) {
        out.push({ method: op.method, url: urlOf(op, own, { [p]: v }, validQuery), body: valid() });
      }
    }
  }
  if (row.dim === 'router') {
    for (const p of op.pathParams) {
      for (const v of ['%ZZ', '%ED%A0%80', 'z'.repeat(201), 'z'.repeat(5000)]) out.push({ method: op.method, url: urlOf(op, own, { [p]: v }, validQuery), body: valid() });
    }
  }
  if (row.dim === 'raw') {
    for (const text of ['{"name":"\\u0000"}', '{"a":1e400}', '\ufeff{}', '{', '[[[[', '{"__proto__":{"x":1}}']) {
      out.push({ method: op.method, url, raw: { contentType: 'application/json', bytes: new Uint8Array(Buffer.from(text, 'utf8')) } });
    }
  }
  return out;
}

describe('fuzz: random and malformed input at every route', () => {
  let t: TestContext;
  let own: Fixtures;

  beforeAll(async () => {
    t = await createTestContext({ config: { maxConcurrentRuns: 1_000_000, rateLimitPerMinute: 1_000_000_000 }, adapters: localAdapters() });
    own = await createFixtures(t, t.key, 'fuzz');
    // a second set in the same organization, so destructive rows leave something for the rest
    const spare = await createFixtures(t, t.key, 'fuzz-spare');
    realIds.push(...fixtureIds(own), ...fixtureIds(spare));
  });
  afterAll(async () => { await t?.close(); });

  it.each(ROWS)('$label', async (row) => {
    const examples = corpus(row, own).map((r) => [r] as [Req]);
    // examples count towards numRuns: the corpus runs in full, then `row.runs` random requests
    await fc.assert(fc.asyncProperty(requestArb(row, own), (r) => check(t, r, row.op)), { numRuns: examples.length + row.runs, seed: SEED, examples, interruptAfterTimeLimit: 45_000 });
  }, 120_000);
});
