import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { SESSION_COOKIE } from './cookies.js';

const API = '/api/v1';

/** The cookie pair from a Set-Cookie header ("name=value"), and the header's attributes. */
function parseSetCookie(header: unknown) {
  const raw = String(Array.isArray(header) ? header[0] : header);
  const [pair, ...attrs] = raw.split(';').map((s) => s.trim());
  return { pair, value: pair.slice(pair.indexOf('=') + 1), attrs: attrs.map((a) => a.toLowerCase()) };
}

describe('dashboard sessions (cookie auth)', () => {
  let t: TestContext;
  const signIn = async (key: string, headers: Record<string, string> = {}) => {
    const res = await t.call('POST', `${API}/sessions`, { key: null, body: { api_key: key }, headers });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { res, cookie: parseSetCookie(res.headers['set-cookie']).pair };
  };
  /** A request carrying only the cookie (no Authorization header). */
  const withCookie = (cookie: string, method: string, url: string, opts: { body?: unknown; csrf?: boolean } = {}) =>
    t.call(method, url, { key: null, body: opts.body, headers: { cookie, ...(opts.csrf ? { 'x-rehearsal-csrf': '1' } : {}) } });

  beforeAll(async () => { t = await createTestContext(); });
  afterAll(async () => { await t.close(); });

  it('exchanges a key for an HttpOnly, SameSite=Strict cookie scoped to the API; the body never holds the key or the token', async () => {
    const { res, cookie } = await signIn(t.key);
    const { attrs, value } = parseSetCookie(res.headers['set-cookie']);
    expect(cookie.startsWith(`${SESSION_COOKIE}=`)).toBe(true);
    expect(value.length).toBeGreaterThanOrEqual(40);
    expect(attrs).toEqual(expect.arrayContaining(['httponly', 'samesite=strict', 'path=/api/v1', 'max-age=43200']));
    expect(attrs).not.toContain('secure'); // plain http: a Secure cookie would never come back
    expect(res.headers['cache-control']).toBe('no-store');
    // the second cookie is only a script-readable "signed in" hint: no secret in it
    const hint = parseSetCookie((res.headers['set-cookie'] as string[])[1]);
    expect(hint.pair).toBe('rehearsal_signed_in=1');
    expect(hint.attrs).toEqual(expect.arrayContaining(['path=/', 'samesite=strict']));
    expect(hint.attrs).not.toContain('httponly');
    expect(res.body).toMatchObject({ organization: { id: t.orgId, name: 'acme' }, api_key: { name: 'test', prefix: t.key.slice(0, 12), last_four: t.key.slice(-4) } });
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(t.key);
    expect(text).not.toContain(value);
  });

  it('marks the cookie Secure when the browser came over https (a TLS-terminating proxy says so)', async () => {
    const { res } = await signIn(t.key, { 'x-forwarded-proto': 'https' });
    expect(parseSetCookie(res.headers['set-cookie']).attrs).toContain('secure');
  });

  it('the cookie alone authenticates reads, scoped to the key\'s organization', async () => {
    const { cookie } = await signIn(t.key);
    const agents = await withCookie(cookie, 'GET', `${API}/agents`);
    expect(agents.status).toBe(200);
    const current = await withCookie(cookie, 'GET', `${API}/sessions/current`);
    expect(current.status).toBe(200);
    expect(current.body.organization.id).toBe(t.orgId);
    // another organization's resources stay invisible
    const other = await t.newOrg();
    const theirs = await t.call('POST', `${API}/agents`, { key: other.key, body: { provider: 'provider_4', name: 'theirs', config: { base_url: 'http://127.0.0.1:9/v1', model: 'm' } } });
    expectError(await withCookie(cookie, 'GET', `${API}/agents/${theirs.body.id}`), 404, 'AGENT_NOT_FOUND');
  });

  it('requires x-rehearsal-csrf: 1 on cookie-authenticated changes (403 FORBIDDEN without it), never on reads', async () => {
    const { cookie } = await signIn(t.key);
    const body = { name: 'csrf-check' };
    const denied = await withCookie(cookie, 'POST', `${API}/api-keys`, { body });
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.body.error).toContain('x-rehearsal-csrf');
    expectError(await withCookie(cookie, 'DELETE', `${API}/sessions/current`), 403, 'FORBIDDEN');
    const wrongValue = await t.call('POST', `${API}/api-keys`, { key: null, body, headers: { cookie, 'x-rehearsal-csrf': 'yes' } });
    expectError(wrongValue, 403, 'FORBIDDEN');
    const ok = await withCookie(cookie, 'POST', `${API}/api-keys`, { body, csrf: true });
    expect(ok.status).toBe(201);
    expect((await withCookie(cookie, 'GET', `${API}/api-keys`)).status).toBe(200);
  });

  it('revoking the key ends its sessions on the very next request, and the dead cookie is cleared', async () => {
    const created = await t.call('POST', `${API}/api-keys`, { body: { name: 'dashboard' } });
    const { cookie } = await signIn(created.body.key);
    expect((await withCookie(cookie, 'GET', `${API}/runs`)).status).toBe(200);
    expect((await t.call('DELETE', `${API}/api-keys/${created.body.id}`)).status).toBe(204);
    const after = await withCookie(cookie, 'GET', `${API}/runs`);
    expectError(after, 401, 'UNAUTHORIZED');
    expect(after.body.error).toMatch(/revoked/);
    const cleared = parseSetCookie(after.headers['set-cookie']);
    expect(cleared.pair).toBe(`${SESSION_COOKIE}=`);
    expect(cleared.attrs).toContain('max-age=0');
    // and the revoked key cannot open a new session
    expectError(await t.call('POST', `${API}/sessions`, { key: null, body: { api_key: created.body.key } }), 401, 'UNAUTHORIZED');
  });

  it('an expired key ends its sessions too', async () => {
    const created = await t.call('POST', `${API}/api-keys`, { body: { name: 'short', expires_at: new Date(Date.now() + 400).toISOString() } });
    const { cookie } = await signIn(created.body.key);
    await new Promise((r) => setTimeout(r, 500));
    expectError(await withCookie(cookie, 'GET', `${API}/runs`), 401, 'UNAUTHORIZED');
  });

  it('signing out deletes the session server-side: a copy of the cookie stops working', async () => {
    const { cookie } = await signIn(t.key);
    const out = await withCookie(cookie, 'DELETE', `${API}/sessions/current`, { csrf: true });
    expect(out.status).toBe(204);
    expect(parseSetCookie(out.headers['set-cookie']).attrs).toContain('max-age=0');
    expectError(await withCookie(cookie, 'GET', `${API}/agents`), 401, 'UNAUTHORIZED');
  });

  it('signing in again closes the session the browser still held', async () => {
    const first = await signIn(t.key);
    const second = await signIn(t.key, { cookie: first.cookie });
    expectError(await withCookie(first.cookie, 'GET', `${API}/agents`), 401, 'UNAUTHORIZED');
    expect((await withCookie(second.cookie, 'GET', `${API}/agents`)).status).toBe(200);
  });

  it('rejects bad sign-ins with the usual envelope', async () => {
    expectError(await t.call('POST', `${API}/sessions`, { key: null, body: { api_key: 'sk_live_nope' } }), 401, 'UNAUTHORIZED');
    expectError(await t.call('POST', `${API}/sessions`, { key: null, body: { api_key: `sk_live_${'a'.repeat(40)}` } }), 401, 'UNAUTHORIZED');
    expectError(await t.call('POST', `${API}/sessions`, { key: null, body: {} }), 400, 'MISSING_REQUIRED_FIELD');
    expectError(await t.call('POST', `${API}/sessions`, { key: null, body: { api_key: t.key, remember: true } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await withCookie(`${SESSION_COOKIE}=forged-token`, 'GET', `${API}/agents`), 401, 'UNAUTHORIZED');
  });

  describe('the Bearer path is unchanged', () => {
    it('a key works without any header beyond Authorization, on reads and changes alike (no CSRF header)', async () => {
      expect((await t.call('GET', `${API}/agents`)).status).toBe(200);
      const created = await t.call('POST', `${API}/api-keys`, { body: { name: 'bearer' } });
      expect(created.status).toBe(201);
      expect(created.headers['set-cookie']).toBeUndefined();
    });

    it('the Authorization header wins over a cookie: a bad key is 401 even next to a live session', async () => {
      const { cookie } = await signIn(t.key);
      const res = await t.call('GET', `${API}/agents`, { key: `sk_live_${'b'.repeat(40)}`, headers: { cookie } });
      expectError(res, 401, 'UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="rehearsal"');
    });

    it('missing credentials still answer the Bearer message; session endpoints need a session', async () => {
      const res = await t.call('GET', `${API}/agents`, { key: null });
      expectError(res, 401, 'UNAUTHORIZED');
      expect(res.body.error).toMatch(/Missing API key/);
      expectError(await t.call('GET', `${API}/sessions/current`), 404, 'NOT_FOUND');
      expectError(await t.call('DELETE', `${API}/sessions/current`), 404, 'NOT_FOUND');
      expectError(await t.call('GET', `${API}/sessions/current`, { key: null }), 401, 'UNAUTHORIZED');
    });
  });

  it('documents the session endpoints and the cookie scheme in the OpenAPI document', async () => {
    const doc = (await t.call('GET', `${API}/openapi.json`, { key: null })).body;
    expect(Object.keys(doc.paths['/api/v1/sessions'])).toEqual(['post']);
    expect(doc.paths['/api/v1/sessions'].post.security).toEqual([]);
    expect(Object.keys(doc.paths['/api/v1/sessions/current']).sort()).toEqual(['delete', 'get']);
    expect(doc.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: SESSION_COOKIE });
  });
});
