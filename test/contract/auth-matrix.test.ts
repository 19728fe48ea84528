/**
 * Authentication matrix: every operation of the OpenAPI document, and every other method of its paths (the
 * 405 stand-ins: 401 comes before everything, decisions §1), answers each bad credential with 401
 * UNAUTHORIZED in the envelope, with x-request-id. Requests are otherwise valid (own ids, valid bodies),
 * so only the credential is wrong. Credentials: the Bearer key, and the dashboard's session cookie that
 * stands in for it. A public operation that takes its key in the body (signing in) gets the bad keys there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeClock } from '../fake-clock.js';
import { createTestContext, type TestContext } from '../harness.js';
import {
  API, coverageProblems, createFixtures, enumerateOperations, envelopeProblems, fetchOpenApi, localAdapters, operationsOf,
  PUBLIC_PATHS, signIn, uniq, urlOf, withOtherMethods, type Fixtures, type Operation,
} from './routes.js';

const DOC = await enumerateOperations();
/** The documented operations plus every other method of their paths (405 stand-ins, still behind auth). */
const OPS = withOtherMethods(DOC);
const PROTECTED = OPS.filter((o) => !PUBLIC_PATHS.has(o.path) && !o.public);
const BODY_CREDENTIAL = OPS.filter((o) => o.public && o.spec?.credentialField);

const KEY_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const randomKeyBody = (n = 40) => Array.from({ length: n }, () => KEY_CHARS[Math.floor(Math.random() * KEY_CHARS.length)]).join('');
const CSRF = { 'x-rehearsal-csrf': '1' };

interface Credentials {
  valid: string; revoked: string; expired: string;
  /** Session cookies ("rehearsal_session=…"): a live one, and ones whose key was revoked / expired. */
  liveCookie: string; revokedCookie: string; expiredCookie: string;
}

/**
 * Each case: the header sets to try on a protected operation, and (for the key cases) the keys to put in
 * the body of a public sign-in operation.
 */
const CASES: { name: string; headers: (c: Credentials) => Record<string, string>[]; bodyKeys?: (c: Credentials) => string[] }[] = [
  { name: 'no Authorization header', headers: () => [{}] },
  {
    name: 'a malformed Authorization header',
    headers: (c) => ['', 'Bearer', 'Bearer ', `Basic ${Buffer.from('user:pass').toString('base64')}`, `Token ${c.valid}`, c.valid, `Bearer ${c.valid} ${c.valid}`, `Bearer${c.valid}`]
      .map((authorization) => ({ authorization })),
  },
  {
    name: 'a malformed key',
    headers: (c) => malformedKeys(c).map((k) => ({ authorization: `Bearer ${k}` })),
    bodyKeys: (c) => malformedKeys(c),
  },
  {
    name: 'an unknown well-formed key',
    // the Authorization header wins over a live session cookie sent along
    headers: (c) => [{ authorization: `Bearer sk_live_${randomKeyBody()}` }, { authorization: `Bearer sk_live_${randomKeyBody()}`, cookie: c.liveCookie, ...CSRF }],
    bodyKeys: () => [`sk_live_${randomKeyBody()}`],
  },
  { name: 'a revoked key', headers: (c) => [{ authorization: `Bearer ${c.revoked}` }], bodyKeys: (c) => [c.revoked] },
  { name: 'an expired key', headers: (c) => [{ authorization: `Bearer ${c.expired}` }], bodyKeys: (c) => [c.expired] },
  {
    name: 'a session cookie that names no session',
    headers: () => [`rehearsal_session=${randomKeyBody(43)}`, 'rehearsal_session=', 'rehearsal_session=%ZZ', `rehearsal_session=${'x'.repeat(5000)}`]
      .map((cookie) => ({ cookie, ...CSRF })),
  },
  { name: 'a session cookie whose key was revoked', headers: (c) => [{ cookie: c.revokedCookie, ...CSRF }] },
  { name: 'a session cookie whose key expired', headers: (c) => [{ cookie: c.expiredCookie, ...CSRF }] },
];

function malformedKeys(c: Credentials): string[] {
  return [
    'sk_live_', 'sk_live_short', `sk_live_${randomKeyBody(39)}`, `sk_live_${randomKeyBody(41)}`, `sk_test_${randomKeyBody()}`, `SK_LIVE_${randomKeyBody()}`,
    `sk_live_${randomKeyBody(39)}-`, `sk_live_${randomKeyBody(39)}é`, c.valid.slice(0, -1), c.valid.replace('sk_live_', ''),
  ];
}

function expect401(res: { status: number; body: any; headers: Record<string, any> }, what: string) {
  expect(res.status, what).toBe(401);
  expect(res.body?.code, what).toBe('UNAUTHORIZED');
  expect(envelopeProblems(res), what).toEqual([]);
}

describe('authentication matrix', () => {
  let t: TestContext;
  let own: Fixtures;
  let creds: Credentials;

  // the service's clock: the expiring key expires when the test moves it, not after a sleep
  const clock = fakeClock();

  beforeAll(async () => {
    t = await createTestContext({ config: { maxConcurrentRuns: 1000, rateLimitPerMinute: 1_000_000 }, adapters: localAdapters(), clock });
    own = await createFixtures(t, t.key, 'auth');
    const revoked = await t.call('POST', `${API}/api-keys`, { body: { name: 'to revoke' } });
    const expiring = await t.call('POST', `${API}/api-keys`, { body: { name: 'expiring', expires_at: new Date(clock.now() + 60_000).toISOString() } });
    expect(revoked.status).toBe(201);
    expect(expiring.status).toBe(201);
    // both keys, and sessions opened with them, work before they are revoked / expire: the 401s below are about that
    const revokedCookie = (await signIn(t, revoked.body.key)).cookie;
    const expiredCookie = (await signIn(t, expiring.body.key)).cookie;
    expect((await t.call('GET', `${API}/agents`, { key: revoked.body.key })).status).toBe(200);
    expect((await t.call('GET', `${API}/agents`, { key: expiring.body.key })).status).toBe(200);
    expect((await t.call('GET', `${API}/agents`, { key: null, headers: { cookie: revokedCookie } })).status).toBe(200);
    expect((await t.call('GET', `${API}/agents`, { key: null, headers: { cookie: expiredCookie } })).status).toBe(200);
    expect((await t.call('DELETE', `${API}/api-keys/${revoked.body.id}`)).status).toBe(204);
    clock.advance(61_000);
    creds = { valid: t.key, revoked: revoked.body.key, expired: expiring.body.key, liveCookie: own.cookie, revokedCookie, expiredCookie };
  });
  afterAll(async () => { await t?.close(); });

  it('the matrix knows every route of the OpenAPI document', async () => {
    const live = operationsOf(await fetchOpenApi(t.app)).map((o) => o.label);
    expect(live).toEqual(DOC.map((o) => o.label));
    expect(coverageProblems(DOC)).toEqual([]);
    expect(DOC.filter((o) => !o.methodNotAllowed).length).toBeGreaterThanOrEqual(30);
  });

  it('every other method of a documented path (and any untagged operation) is a 405 stand-in, not an unlisted route', async () => {
    for (const op of OPS.filter((o) => o.methodNotAllowed)) {
      const res = await t.call(op.method, urlOf(op, own), { body: op.method === 'GET' ? undefined : {} });
      expect(res.status, op.label).toBe(405);
      expect(res.body.code, op.label).toBe('METHOD_NOT_ALLOWED');
      const allowed = new Set(OPS.filter((o) => o.path === op.path && !o.methodNotAllowed).map((o) => o.method));
      if (PUBLIC_PATHS.has(op.path)) allowed.add('GET'); // the document's own GET is hidden from it
      if (allowed.has('GET')) allowed.add('HEAD'); // served wherever GET is
      expect(new Set(String(res.headers.allow).split(/,\s*/)), op.label).toEqual(allowed);
    }
  });

  it('a revoked key and an unknown key get the same answer (nothing tells whether a key ever existed)', async () => {
    const unknown = await t.call('GET', `${API}/agents`, { key: `sk_live_${randomKeyBody()}` });
    const revoked = await t.call('GET', `${API}/agents`, { key: creds.revoked });
    expect(revoked.body).toEqual(unknown.body);
  });

  describe.each(CASES)('$name → 401 UNAUTHORIZED', ({ headers, bodyKeys }) => {
    it.each(PROTECTED.map((op) => ({ op, label: op.label })))('$label', async ({ op }: { op: Operation }) => {
      for (const h of headers(creds)) {
        const res = await t.call(op.method, urlOf(op, own), { key: null, headers: h, body: op.spec?.body ? op.spec.body(own, uniq('auth')) : undefined });
        expect401(res, `${op.label} with ${JSON.stringify(h).slice(0, 200)} → ${res.status} ${JSON.stringify(res.body)}`);
      }
    });

    const bodyRows = bodyKeys ? BODY_CREDENTIAL.map((op) => ({ op, label: `${op.label} (key in the body field ${op.spec!.credentialField})` })) : [];
    if (bodyRows.length > 0) {
      it.each(bodyRows)('$label', async ({ op }: { op: Operation }) => {
        for (const k of bodyKeys!(creds)) {
          const body = { ...(op.spec!.body!(own, uniq('auth')) as object), [op.spec!.credentialField!]: k };
          const res = await t.call(op.method, urlOf(op, own), { key: null, body });
          expect401(res, `${op.label} with ${JSON.stringify(body)} → ${res.status} ${JSON.stringify(res.body)}`);
          expect(res.headers['set-cookie'], `${op.label}: no session for a bad key`).toBeUndefined();
        }
      });
    }
  });

  it('nothing was done with the bad credentials: the fixtures are intact and the good credentials still work', async () => {
    for (const path of [`/agents/${own.agent}`, `/scenarios/${own.scenario}`, `/test-suites/${own.suite}`, `/runs/${own.run}`, `/webhooks/${own.webhook}`, `/scenario-runs/${own.scenarioRun}`, `/webhooks/${own.webhook}/deliveries/${own.delivery}`]) {
      expect((await t.call('GET', `${API}${path}`)).status, path).toBe(200);
    }
    expect((await t.call('GET', `${API}/runs/${own.run}`)).body.status).toBe('pending');
    expect((await t.call('GET', `${API}/agents`, { key: own.apiKeyValue })).status).toBe(200);
    expect((await t.call('GET', `${API}/agents`, { key: null, headers: { cookie: own.cookie } })).status).toBe(200);
  });
});
