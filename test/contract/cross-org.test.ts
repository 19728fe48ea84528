/**
 * Tenancy: organization A owns one of each resource; organization B, with its own valid key, tries every
 * route of the OpenAPI document against them. One table, one row per route (test/contract/routes.ts says
 * how to exercise each):
 *  - a path id of A's (UUID, upper-cased UUID, and TR-<digits> for runs; for nested paths each id in turn)
 *    → 404 with the resource's code, and A's resource is unchanged afterwards;
 *  - a body/query field naming A's resource → the code decisions §1 gives (400 from the body, 404 for the
 *    scenario-run list's test_run_id; list filters must not leak);
 *  - B's lists never contain A's ids; what B creates, A cannot see;
 *  - the dashboard-session routes answer about B only and never touch A's session.
 * B calls with its Bearer key and, for every check that reads or changes A's data, also with its dashboard
 * session cookie (the other credential the API accepts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../harness.js';
import {
  API, as, coverageProblems, createFixtures, enumerateOperations, envelopeProblems, fixtureIds, idOf, KINDS, listAll, localAdapters,
  signIn, snapshot, uniq, urlOf, type Fixtures, type Kind, type Operation, type Via,
} from './routes.js';

const OPS = await enumerateOperations();
const ROUTES = OPS.filter((o) => !o.methodNotAllowed);
const ALL_KINDS = Object.keys(KINDS) as Kind[];
const VIAS: Via[] = ['bearer', 'cookie'];

type Res = Awaited<ReturnType<TestContext['call']>>;
const show = (method: string, url: string, res: Res) => `${method} ${url} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 400)}`;

/** A's ids as they may appear in B's data. UUIDs anywhere (also inside poll_url); the human run id as a whole JSON string. */
function leaks(json: string, a: Fixtures): string[] {
  return fixtureIds(a).filter((id) => (id.startsWith('TR-') ? json.includes(JSON.stringify(id)) : json.toLowerCase().includes(id.toLowerCase())));
}

/** The ways of naming A's resource in a path: the UUID, upper-cased, and the human id for runs. */
function spellings(a: Fixtures, kind: Kind): string[] {
  const id = idOf(a, kind);
  return kind === 'run' ? [id, id.toUpperCase(), a.runHuman] : [id, id.toUpperCase()];
}

describe('cross-organization isolation', () => {
  let t: TestContext;
  let A: Fixtures;
  let B: Fixtures;
  const before = new Map<Kind, unknown>();

  beforeAll(async () => {
    t = await createTestContext({ config: { maxConcurrentRuns: 1000, rateLimitPerMinute: 1_000_000 }, adapters: localAdapters() });
    A = await createFixtures(t, t.key, 'alpha');
    const b = await t.newOrg('beta');
    B = await createFixtures(t, b.key, 'beta');
    for (const kind of ALL_KINDS) before.set(kind, await snapshot(t, A, kind));
  });
  afterAll(async () => { await t?.close(); });

  it('every route of the OpenAPI document has a row in the matrix', () => {
    expect(coverageProblems(OPS)).toEqual([]);
  });

  it.each(ROUTES.map((op) => ({ label: op.label, op })))('$label', async ({ op }: { op: Operation }) => {
    const spec = op.spec;
    if (!spec) throw new Error(`${op.label} is not in the contract-test matrix (test/contract/routes.ts)`);
    const call = async (who: Fixtures, url: string, body?: unknown, via: Via = 'bearer') => {
      const res = await t.call(op.method, url, { ...as(who, via), body });
      expect(envelopeProblems(res), `${via}: ${show(op.method, url, res)}`).toEqual([]);
      return res;
    };
    let checks = 0;

    // 1. A's ids in the path, one parameter at a time and all at once
    const params = Object.entries(spec.params ?? {});
    if (params.length > 0) {
      const variants: { override: Record<string, string>; foreign: Kind[] }[] = [];
      for (const [name, kind] of params) for (const s of spellings(A, kind)) variants.push({ override: { [name]: s }, foreign: [kind] });
      if (params.length > 1) variants.push({ override: Object.fromEntries(params.map(([name, kind]) => [name, idOf(A, kind)])), foreign: params.map(([, k]) => k) });
      const touched = [...new Set(params.map(([, k]) => k))];
      for (const via of VIAS) {
        for (const v of variants) {
          const snaps = spec.mutates ? await Promise.all(touched.map((k) => snapshot(t, A, k))) : [];
          const url = urlOf(op, B, v.override, spec.query?.(B) ?? '');
          const res = await call(B, url, spec.body?.(B, uniq('b')), via);
          const what = `${via}: ${show(op.method, url, res)}`;
          expect(res.status, what).toBe(404);
          expect(v.foreign.map((k) => KINDS[k].notFound), what).toContain(res.body.code);
          expect(leaks(JSON.stringify(res.body), A).filter((id) => !Object.values(v.override).some((o) => o.toLowerCase() === id.toLowerCase())), what).toEqual([]);
          if (spec.mutates) expect(await Promise.all(touched.map((k) => snapshot(t, A, k))), `${op.label} (${via}): B changed A's resource`).toEqual(snaps);
          checks++;
        }
      }
      if (!spec.mutates) {
        // control: the same request by the owner succeeds, so the 404s above are about ownership
        const url = urlOf(op, A, {}, spec.query?.(A) ?? '');
        const res = await call(A, url, spec.body?.(A, uniq('a')));
        expect(res.status, show(op.method, url, res)).toBeLessThan(300);
      }
    }

    // 2. A's resources referenced from the body or the query string
    for (const [ref, via] of (spec.refs ?? []).flatMap((r) => VIAS.map((v) => [r, v] as const))) {
      const req = ref.build(B, A, uniq('b'));
      const url = urlOf(op, B, req.id ? { id: req.id } : {}, req.query ?? '');
      const res = await call(B, url, req.body, via);
      const what = `${ref.in} ${ref.field} (${via}): ${show(op.method, url, res)}`;
      if ('filter' in ref.expect) {
        const kind = op.spec!.list!;
        if (res.status === 200) {
          expect(res.body[KINDS[kind].plural], what).toEqual([]);
          expect(res.body.total, what).toBe(0);
        } else {
          expect(res.status, what).toBe(400);
          expect(res.body.code, what).toBe(KINDS[ref.expect.filter].notFound);
        }
        // control: the owner's same filter finds its own resource
        const own = ref.build(A, A, uniq('a'));
        const mine = await call(A, urlOf(op, A, {}, own.query ?? ''));
        expect(mine.status, what).toBe(200);
        expect(mine.body[KINDS[kind].plural].map((x: any) => x.id), what).toContain(idOf(A, kind));
      } else {
        expect(res.status, what).toBe(ref.expect.status);
        expect(res.body.code, what).toBe(ref.expect.code);
        if (ref.expect.detailsIncludeForeign) {
          expect(JSON.stringify(res.body.details ?? {}), what).toContain(idOf(A, ref.expect.detailsIncludeForeign as Kind));
        }
      }
      checks++;
    }

    // 3. B's list never shows A's resources (all pages); the owner's list does (control)
    if (spec.list) {
      const kind = spec.list;
      const url = (f: Fixtures) => urlOf(op, f, {}, spec.query?.(f) ?? '');
      const theirs = await listAll(t, B.key, url(B), KINDS[kind].plural);
      expect(leaks(JSON.stringify(theirs), A), `${op.label}: B's list shows A's ids`).toEqual([]);
      const viaCookie = await t.call('GET', `${url(B)}${url(B).includes('?') ? '&' : '?'}limit=100`, as(B, 'cookie'));
      expect(viaCookie.status, `${op.label} with B's session cookie`).toBe(200);
      expect(leaks(JSON.stringify(viaCookie.body), A), `${op.label}: B's list (session cookie) shows A's ids`).toEqual([]);
      const mine = await listAll(t, A.key, url(A), KINDS[kind].plural);
      expect(mine.map((x) => x.id), `${op.label}: the owner's list`).toContain(idOf(A, kind));
      checks++;
    }

    // 4. what B creates stays B's: A can neither read it nor find it in its lists
    if (spec.creates) {
      const kind = spec.creates;
      const url = urlOf(op, B, {}, spec.query?.(B) ?? '');
      const res = await call(B, url, spec.body?.(B, uniq('b')));
      expect(res.status, show(op.method, url, res)).toBeLessThan(300);
      const newId: string = res.body.id;
      expect(typeof newId).toBe('string');
      const get = KINDS[kind].get;
      if (get) {
        const path = `${API}${get(B, newId)}`;
        const seen = await t.call('GET', path, { key: A.key });
        expect(seen.status, show('GET', path, seen)).toBe(404);
      }
      const aList = await listAll(t, A.key, `${API}${KINDS[kind].list(A)}`, KINDS[kind].plural);
      expect(aList.map((x) => x.id), `${op.label}: A's list shows B's new resource`).not.toContain(newId);
      checks++;
    }

    // 5. the caller's own session: B's fresh session answers about B only, and A's session survives
    if (spec.self) {
      const fresh = { ...B, cookie: (await signIn(t, B.key)).cookie };
      const url = urlOf(op, B, {}, spec.query?.(B) ?? '');
      const res = await call(fresh, url, spec.body?.(B, uniq('b')), 'cookie');
      expect(res.status, show(op.method, url, res)).toBeLessThan(300);
      if (res.body && typeof res.body === 'object') {
        expect(res.body.organization?.id, show(op.method, url, res)).toBe(B.orgId);
        expect(leaks(JSON.stringify(res.body), A), show(op.method, url, res)).toEqual([]);
      }
      const mine = await t.call('GET', `${API}/sessions/current`, as(A, 'cookie'));
      expect(mine.status, `A's session after ${op.label} by B`).toBe(200);
      expect(mine.body.organization.id).toBe(A.orgId);
      checks++;
    }

    // 6. an organization-wide figure: A's new data moves A's answer and never B's
    if (spec.aggregate) {
      const url = (f: Fixtures) => urlOf(op, f, {}, spec.query?.(f) ?? '');
      const read = async (f: Fixtures, via: Via = 'bearer') => {
        const res = await call(f, url(f), undefined, via);
        expect(res.status, show(op.method, url(f), res)).toBe(200);
        return res.body;
      };
      const theirs = await read(B);
      const mine = await read(A);
      await spec.aggregate(t, A);
      expect(await read(B), `${op.label}: A's data moved B's figure`).toEqual(theirs);
      expect(await read(B, 'cookie'), `${op.label}: A's data moved B's figure (session cookie)`).toEqual(theirs);
      expect(await read(A), `${op.label}: the owner's figure did not count its own data`).not.toEqual(mine);
      checks++;
    }

    expect(checks, `${op.label}: the matrix gives this route nothing to check`).toBeGreaterThan(0);
  });

  it("A's resources are unchanged after every attempt by B", async () => {
    for (const kind of ALL_KINDS) expect(await snapshot(t, A, kind), kind).toEqual(before.get(kind));
    expect((await t.call('GET', `${API}/runs/${A.run}`, { key: A.key })).body.status).toBe('pending');
    expect((await t.call('GET', `${API}/sessions/current`, as(A, 'cookie'))).body.organization.id).toBe(A.orgId);
  });
});
