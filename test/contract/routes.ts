/**
 * The route inventory of the contract tests.
 *
 * Every operation comes from the app's own OpenAPI document (GET /api/v1/openapi.json), so a route added
 * later is picked up automatically. The MATRIX below says how to exercise each one (which resource its path
 * id names, a valid body, which body/query fields reference resources, which list it is). A route the
 * matrix does not know makes `coverageProblems` non-empty, and the contract tests fail: nobody can add an
 * endpoint without its security cases.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import { systemClock } from '../../src/lib/clock.js';
import { createSecretBox, generateSecret } from '../../src/lib/secret-box.js';
import { createAdapters } from '../../src/providers/registry.js';
import type { ProviderAdapter, ProviderId } from '../../src/engine/provider.js';
import { noopRunPorts, type TestContext } from '../harness.js';

export const API = '/api/v1';

// ---------------------------------------------------------------------------------------------------------
// The closed error vocabulary of decisions §1 (written out here, not imported: the tests check the app).
// ---------------------------------------------------------------------------------------------------------

export const ERROR_CODES: Record<string, number[]> = {
  MISSING_REQUIRED_FIELD: [400],
  INVALID_FIELD_VALUE: [400],
  INVALID_JSON: [400],
  BAD_REQUEST: [400],
  UNAUTHORIZED: [401],
  FORBIDDEN: [403],
  // 404 for a resource in the path, 400 for one referenced from the body
  AGENT_NOT_FOUND: [404, 400],
  RUN_NOT_FOUND: [404, 400],
  SCENARIO_RUN_NOT_FOUND: [404, 400],
  NOT_FOUND: [404, 400],
  METHOD_NOT_ALLOWED: [405],
  ALREADY_EXISTS: [409],
  INVALID_STATE: [409],
  IDEMPOTENCY_CONFLICT: [409],
  PAYLOAD_TOO_LARGE: [413],
  RATE_LIMITED: [429],
  HEADERS_TOO_LARGE: [431],
  INTERNAL_ERROR: [500],
};

/** Problems with a response against the envelope rules of decisions §1 (empty when it conforms). */
export function envelopeProblems(res: { status: number; body: unknown; headers: Record<string, unknown> }): string[] {
  const out: string[] = [];
  const rid = res.headers['x-request-id'];
  if (typeof rid !== 'string' || rid.length === 0) out.push('no x-request-id header');
  if (res.status >= 400) {
    const b = res.body as any;
    if (b === null || typeof b !== 'object' || Array.isArray(b)) {
      out.push(`error body is not a JSON object: ${JSON.stringify(b)?.slice(0, 200)}`);
      return out;
    }
    const extra = Object.keys(b).filter((k) => !['error', 'code', 'details'].includes(k));
    if (extra.length) out.push(`error body has fields outside the envelope: ${extra.join(', ')}`);
    if (typeof b.error !== 'string' || b.error.length === 0) out.push('error is not a non-empty string');
    if (typeof b.code !== 'string' || !(b.code in ERROR_CODES)) out.push(`code ${JSON.stringify(b.code)} is not in the closed list`);
    else if (!ERROR_CODES[b.code].includes(res.status)) out.push(`code ${b.code} answered with HTTP ${res.status}`);
    if ('details' in b && (b.details === null || typeof b.details !== 'object' || Array.isArray(b.details))) out.push('details is not an object');
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Resources and fixtures
// ---------------------------------------------------------------------------------------------------------

export type Kind = 'agent' | 'scenario' | 'suite' | 'run' | 'scenarioRun' | 'webhook' | 'delivery' | 'apiKey' | 'schedule';
export type NotFoundCode = 'AGENT_NOT_FOUND' | 'RUN_NOT_FOUND' | 'SCENARIO_RUN_NOT_FOUND' | 'NOT_FOUND';

/**
 * Per kind: its not-found code, where its owner reads one (`get`, null when there is no single-item GET)
 * and the list that shows it (paths relative to /api/v1; `f` gives the parent ids, e.g. a delivery's webhook).
 */
export const KINDS: Record<Kind, { notFound: NotFoundCode; get: ((f: Fixtures, id: string) => string) | null; list: (f: Fixtures) => string; plural: string }> = {
  agent: { notFound: 'AGENT_NOT_FOUND', get: (_f, id) => `/agents/${id}`, list: () => '/agents', plural: 'agents' },
  scenario: { notFound: 'NOT_FOUND', get: (_f, id) => `/scenarios/${id}`, list: () => '/scenarios', plural: 'scenarios' },
  suite: { notFound: 'NOT_FOUND', get: (_f, id) => `/test-suites/${id}`, list: () => '/test-suites', plural: 'test_suites' },
  run: { notFound: 'RUN_NOT_FOUND', get: (_f, id) => `/runs/${id}`, list: () => '/runs', plural: 'runs' },
  scenarioRun: { notFound: 'SCENARIO_RUN_NOT_FOUND', get: (_f, id) => `/scenario-runs/${id}`, list: (f) => `/scenario-runs?test_run_id=${f.run}`, plural: 'scenario_runs' },
  webhook: { notFound: 'NOT_FOUND', get: (_f, id) => `/webhooks/${id}`, list: () => '/webhooks', plural: 'webhooks' },
  delivery: { notFound: 'NOT_FOUND', get: (f, id) => `/webhooks/${f.webhook}/deliveries/${id}`, list: (f) => `/webhooks/${f.webhook}/deliveries`, plural: 'deliveries' },
  apiKey: { notFound: 'NOT_FOUND', get: null, list: () => '/api-keys', plural: 'api_keys' },
  schedule: { notFound: 'NOT_FOUND', get: (_f, id) => `/schedules/${id}`, list: () => '/schedules', plural: 'schedules' },
};

/** Every item of a list (all pages), read by `key`; `url` is the full path (with /api/v1), query allowed. */
export async function listAll(t: TestContext, key: string, url: string, plural: string): Promise<any[]> {
  const out: any[] = [];
  for (let offset = 0; ; offset += 100) {
    const res = await t.call('GET', `${url}${url.includes('?') ? '&' : '?'}limit=100&offset=${offset}`, { key });
    if (res.status !== 200) throw new Error(`GET ${url} → ${res.status} ${JSON.stringify(res.body)}`);
    out.push(...res.body[plural]);
    if (offset + 100 >= res.body.total || res.body[plural].length === 0) return out;
  }
}

/** One of each resource, owned by one organization. */
export interface Fixtures {
  orgId: string;
  key: string;
  /** A dashboard session of `key`: the Cookie header value ("rehearsal_session=…"). */
  cookie: string;
  agent: string;
  scenario: string;
  suite: string;
  run: string;
  /** The run's human id, TR-<digits>. */
  runHuman: string;
  scenarioRun: string;
  webhook: string;
  /** A delivery of `webhook` (a test ping; its URL is a refused loopback address, so nothing is sent). */
  delivery: string;
  apiKey: string;
  /** The secret of `apiKey` (a second key of the organization; never the one the tests call with). */
  apiKeyValue: string;
  /** An inactive schedule (it never fires during the tests). */
  schedule: string;
}

/**
 * The real adapters with their network calls answered locally: POST /agents/{id}/validate needs no network
 * (nor retries against a closed port), and no provider session is ever opened (the run engine is off anyway).
 */
export function localAdapters(): Partial<Record<ProviderId, ProviderAdapter>> {
  const out: Partial<Record<ProviderId, ProviderAdapter>> = {};
  for (const [provider, real] of Object.entries(createAdapters()) as [ProviderId, ProviderAdapter][]) {
    out[provider] = {
      ...real,
      validate: async () => ({ valid: true, message: 'stubbed for the contract tests', details: {} }),
      openSession: async () => { throw new Error('the contract tests open no provider sessions'); },
    };
  }
  return out;
}

/** Webhook target: loopback, which the outbound policy refuses at connect time, so no request leaves. */
export const HOOK_URL = 'http://127.0.0.1:9/hooks';

export const P4_CONFIG = { base_url: 'http://127.0.0.1:9/v1', model: 'contract-model' };

let serial = 0;
/** A fresh suffix for names that must be unique. */
export const uniq = (label = 'x') => `${label}-${process.pid}-${++serial}-${Math.random().toString(36).slice(2, 7)}`;

export async function createFixtures(t: TestContext, key: string, label: string): Promise<Fixtures> {
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await t.call(method, `${API}${path}`, { key, body });
    if (res.status >= 300) throw new Error(`fixture ${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const agent = await ok('POST', '/agents', { provider: 'provider_4', name: `Agent ${label}`, description: `of ${label}`, config: P4_CONFIG });
  const scenario = await ok('POST', '/scenarios', {
    name: `Scenario ${label}`, script: ['Hello', 'Bye'], criteria: [{ criterion: 'Greets the caller', check: { type: 'contains', value: 'hello' } }],
  });
  const suite = await ok('POST', '/test-suites', { name: `Suite ${label}`, scenario_ids: [scenario.id] });
  const run = await ok('POST', '/runs', { agent_id: agent.id, test_suite_id: suite.id, name: `Run ${label}` });
  const results = await ok('GET', `/runs/${run.id}/results`);
  const webhook = await ok('POST', '/webhooks', { url: `${HOOK_URL}/${label}`, description: `of ${label}`, agent_id: agent.id });
  const delivery = await ok('POST', `/webhooks/${webhook.id}/test`);
  const apiKey = await ok('POST', '/api-keys', { name: `Key ${label}` });
  const schedule = await ok('POST', '/schedules', { agent_id: agent.id, test_suite_id: suite.id, cron: '0 3 * * *', is_active: false });
  const { cookie, orgId } = await signIn(t, key);
  return {
    orgId, key, cookie, agent: agent.id, scenario: scenario.id, suite: suite.id, run: run.id, runHuman: run.test_run_id,
    scenarioRun: results.results[0].id, webhook: webhook.id, delivery: delivery.id, apiKey: apiKey.id, apiKeyValue: apiKey.key,
    schedule: schedule.id,
  };
}

/** The Cookie header value of a dashboard session ("rehearsal_session=…"), opened with `key`. */
export function sessionCookieOf(res: { headers: Record<string, unknown> }): string {
  const raw = res.headers['set-cookie'];
  const first = String(Array.isArray(raw) ? raw[0] : raw);
  return first.split(';')[0].trim();
}

/** Opens a dashboard session with `key` (POST /sessions). */
export async function signIn(t: TestContext, key: string): Promise<{ cookie: string; orgId: string }> {
  const res = await t.call('POST', `${API}/sessions`, { key: null, body: { api_key: key } });
  if (res.status !== 201) throw new Error(`POST /sessions → ${res.status} ${JSON.stringify(res.body)}`);
  return { cookie: sessionCookieOf(res), orgId: res.body.organization.id };
}

export type Via = 'bearer' | 'cookie';
/** How to call as `f`: its Bearer key, or its session cookie (with the CSRF header cookie callers send on writes). */
export function as(f: Fixtures, via: Via): { key: string | null; headers: Record<string, string> } {
  return via === 'bearer' ? { key: f.key, headers: {} } : { key: null, headers: { cookie: f.cookie, 'x-rehearsal-csrf': '1' } };
}

/** Ids of every kind (the human run id included), for "never contains" checks. */
export const fixtureIds = (f: Fixtures) => [f.orgId, f.agent, f.scenario, f.suite, f.run, f.runHuman, f.scenarioRun, f.webhook, f.delivery, f.apiKey, f.schedule];

export function idOf(f: Fixtures, kind: Kind): string {
  return f[kind];
}

/**
 * What the owner sees of one resource: compared before and after another organization tried to touch it.
 * `last_used_at` of a key moves whenever the key is used, so it is left out.
 */
export async function snapshot(t: TestContext, owner: Fixtures, kind: Kind): Promise<unknown> {
  const id = idOf(owner, kind);
  if (kind === 'apiKey') {
    const row = (await listAll(t, owner.key, `${API}/api-keys`, 'api_keys')).find((k) => k.id === id);
    const works = await t.call('GET', `${API}/api-keys?limit=1`, { key: owner.apiKeyValue });
    return { row: row ? { ...row, last_used_at: undefined } : null, keyStillWorks: works.status };
  }
  const res = await t.call('GET', `${API}${KINDS[kind].get!(owner, id)}`, { key: owner.key });
  const out: Record<string, unknown> = { status: res.status, body: res.body };
  if (kind === 'run') out.results = (await t.call('GET', `${API}/runs/${id}/results`, { key: owner.key })).body;
  if (kind === 'webhook') out.deliveries = (await t.call('GET', `${API}/webhooks/${id}/deliveries`, { key: owner.key })).body;
  if (kind === 'scenario') out.names = (await listAll(t, owner.key, `${API}/scenarios`, 'scenarios')).filter((s) => !s.is_builtin).map((s) => s.name).sort();
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// The matrix: how to exercise each operation
// ---------------------------------------------------------------------------------------------------------

export interface RefCase {
  /** The body property or query parameter that references a resource. */
  field: string;
  in: 'body' | 'query';
  /** A request naming the foreign resource in `field` and only own resources otherwise. */
  build(own: Fixtures, foreign: Fixtures, n: string): { id?: string; body?: unknown; query?: string };
  /**
   * `status`/`code`: the exact answer (decisions §1). `filter`: a list filter; it must not leak — an empty
   * page, or a 400 with the resource's not-found code.
   */
  expect: { status: number; code: string; detailsIncludeForeign?: string } | { filter: Kind };
}

export interface RouteSpec {
  /** Resource named by each path parameter. Run paths also accept the human id TR-<digits>. */
  params?: Record<string, Kind>;
  /** Changes state: another organization's attempt must leave the resource unchanged. */
  mutates?: boolean;
  /** A valid body from the caller's own fixtures (`n` makes names unique). */
  body?(own: Fixtures, n: string): unknown;
  /** A valid query string (without "?") from the caller's own fixtures. */
  query?(own: Fixtures): string;
  /** A list: its envelope property and the kind listed. */
  list?: Kind;
  /** A creating POST: what it creates (the new resource must be invisible to other organizations). */
  creates?: Kind;
  refs?: RefCase[];
  /**
   * A public operation (OpenAPI `security: []`) whose credential travels in this body field instead of the
   * Authorization header: the auth matrix puts each bad key there.
   */
  credentialField?: string;
  /**
   * Describes or ends the caller's own dashboard session: called with a fresh session of the other
   * organization, it must answer about that organization only and leave the owner's session alone.
   */
  self?: boolean;
  /**
   * An organization-wide figure rather than a resource: `seed` gives the owner data the figure counts. Another
   * organization's answer must not move; the owner's must (control).
   */
  aggregate?: (t: TestContext, owner: Fixtures) => Promise<void>;
}

/** A new run of the owner whose one scenario run a judge graded, reviewed by the owner. */
async function seedReviewedCriterion(t: TestContext, owner: Fixtures) {
  const run = await t.call('POST', `${API}/runs`, { key: owner.key, body: { agent_id: owner.agent, test_suite_id: owner.suite } });
  const [sr] = (await t.call('GET', `${API}/runs/${run.body.id}/results`, { key: owner.key })).body.results;
  const criteria = [{ criterion: 'Greets the caller', decision: 'MET', points_awarded: 1, max_points: 1, rationale: 'seeded', graded_by: 'judge' }];
  await t.deps.db.executeSql(
    `update scenario_runs set status = 'passed', passed = true, criteria_results = $2::jsonb, judge_model = 'contract-judge', completed_at = now() where id = $1`,
    [sr.id, JSON.stringify(criteria)],
  );
  await t.deps.db.executeSql(`update runs set status = 'completed', passed_count = 1, completed_at = now() where id = $1`, [run.body.id]);
  const res = await t.call('POST', `${API}/scenario-runs/${sr.id}/reviews`, { key: owner.key, body: { criterion_index: 0, decision: 'NOT_MET' } });
  if (res.status !== 201) throw new Error(`seeding a review → ${res.status} ${JSON.stringify(res.body)}`);
}

// valid bodies with some nesting (free-form objects), so that the fuzz corpus can put odd values deep inside them
const scenarioBody = (n: string) => ({
  name: `Scenario ${n}`, tags: ['contract'],
  criteria: [{ criterion: 'Stays polite' }, { criterion: 'Looks the order up', check: { type: 'tool_called', name: 'lookup_order', arguments: { order_id: '42' } } }],
});
const agentConfig = { ...P4_CONFIG, tool_mocks: { lookup_order: { status: 'shipped' } } };

export const MATRIX: Record<string, RouteSpec> = {
  // API keys
  'POST /api/v1/api-keys': { creates: 'apiKey', body: (_o, n) => ({ name: `Key ${n}` }) },
  'GET /api/v1/api-keys': { list: 'apiKey' },
  'DELETE /api/v1/api-keys/{id}': { params: { id: 'apiKey' }, mutates: true },

  // Agents
  'POST /api/v1/agents': { creates: 'agent', body: (_o, n) => ({ provider: 'provider_4', name: `Agent ${n}`, config: agentConfig }) },
  'GET /api/v1/agents': { list: 'agent', query: () => 'provider=provider_4' },
  'GET /api/v1/agents/{id}': { params: { id: 'agent' } },
  'PUT /api/v1/agents/{id}': { params: { id: 'agent' }, mutates: true, body: (_o, n) => ({ name: `Hijacked ${n}`, description: 'changed', is_active: false }) },
  'DELETE /api/v1/agents/{id}': { params: { id: 'agent' }, mutates: true },
  'POST /api/v1/agents/{id}/validate': { params: { id: 'agent' } },

  // Runs
  'POST /api/v1/runs': {
    creates: 'run',
    body: (o) => ({ agent_id: o.agent, test_suite_id: o.suite, max_turns: 2 }),
    refs: [
      { field: 'agent_id', in: 'body', build: (_o, f) => ({ body: { agent_id: f.agent } }), expect: { status: 400, code: 'AGENT_NOT_FOUND' } },
      { field: 'test_suite_id', in: 'body', build: (o, f) => ({ body: { agent_id: o.agent, test_suite_id: f.suite } }), expect: { status: 400, code: 'NOT_FOUND' } },
      { field: 'baseline', in: 'body', build: (o, f) => ({ body: { agent_id: o.agent, test_suite_id: o.suite, baseline: f.run } }), expect: { status: 400, code: 'RUN_NOT_FOUND' } },
      { field: 'baseline', in: 'body', build: (o, f) => ({ body: { agent_id: o.agent, test_suite_id: o.suite, baseline: f.runHuman } }), expect: { status: 400, code: 'RUN_NOT_FOUND' } },
    ],
  },
  'GET /api/v1/runs': {
    list: 'run',
    refs: [
      { field: 'agent_id', in: 'query', build: (_o, f) => ({ query: `agent_id=${f.agent}` }), expect: { filter: 'agent' } },
      { field: 'test_suite_id', in: 'query', build: (_o, f) => ({ query: `test_suite_id=${f.suite}` }), expect: { filter: 'suite' } },
    ],
  },
  'GET /api/v1/runs/{id}': { params: { id: 'run' } },
  'GET /api/v1/runs/{id}/results': { params: { id: 'run' }, query: () => 'status=pending&limit=10' },
  'POST /api/v1/runs/{id}/cancel': { params: { id: 'run' }, mutates: true },
  'GET /api/v1/runs/{id}/scenarios': { params: { id: 'run' }, query: () => 'limit=10' },
  'GET /api/v1/runs/{id}/comparison': {
    params: { id: 'run' },
    query: (o) => `against=${o.run}`,
    refs: [
      { field: 'against', in: 'query', build: (_o, f) => ({ query: `against=${f.run}` }), expect: { status: 404, code: 'RUN_NOT_FOUND' } },
      { field: 'against', in: 'query', build: (_o, f) => ({ query: `against=${f.runHuman}` }), expect: { status: 404, code: 'RUN_NOT_FOUND' } },
    ],
  },

  // Scenario runs
  'GET /api/v1/scenario-runs': {
    list: 'scenarioRun',
    query: (o) => `test_run_id=${o.run}`,
    refs: [
      { field: 'test_run_id', in: 'query', build: (_o, f) => ({ query: `test_run_id=${f.run}` }), expect: { status: 404, code: 'NOT_FOUND' } },
      { field: 'test_run_id', in: 'query', build: (_o, f) => ({ query: `test_run_id=${f.runHuman}` }), expect: { status: 404, code: 'NOT_FOUND' } },
    ],
  },
  'GET /api/v1/scenario-runs/{id}': { params: { id: 'scenarioRun' } },
  'GET /api/v1/scenario-runs/{id}/diff': {
    params: { id: 'scenarioRun' },
    query: (o) => `against=${o.scenarioRun}`,
    refs: [
      { field: 'against', in: 'query', build: (_o, f) => ({ query: `against=${f.scenarioRun}` }), expect: { status: 404, code: 'SCENARIO_RUN_NOT_FOUND' } },
    ],
  },

  // Human review and judge agreement
  'POST /api/v1/scenario-runs/{id}/reviews': { params: { id: 'scenarioRun' }, mutates: true, body: () => ({ criterion_index: 0, decision: 'NOT_MET', note: 'hijacked' }) },
  'GET /api/v1/scenario-runs/{id}/reviews': { params: { id: 'scenarioRun' }, query: () => 'criterion_index=0&limit=10' },
  'GET /api/v1/judge/agreement': { aggregate: seedReviewedCriterion, query: () => 'since=2000-01-01T00:00:00Z' },

  // Scenario templates
  'GET /api/v1/scenarios': { list: 'scenario' },
  'POST /api/v1/scenarios': { creates: 'scenario', body: (_o, n) => scenarioBody(n) },
  'GET /api/v1/scenarios/{id}': { params: { id: 'scenario' } },
  'PUT /api/v1/scenarios/{id}': { params: { id: 'scenario' }, mutates: true, body: (_o, n) => ({ name: `Hijacked ${n}`, description: 'changed' }) },
  'DELETE /api/v1/scenarios/{id}': { params: { id: 'scenario' }, mutates: true },
  'POST /api/v1/scenarios/{id}/duplicate': { params: { id: 'scenario' }, mutates: true, creates: 'scenario' },

  // Test suites
  'POST /api/v1/test-suites': {
    creates: 'suite',
    body: (o, n) => ({ name: `Suite ${n}`, scenario_ids: [o.scenario] }),
    refs: [
      { field: 'scenario_ids', in: 'body', build: (_o, f, n) => ({ body: { name: `Suite ${n}`, scenario_ids: [f.scenario] } }), expect: { status: 400, code: 'INVALID_FIELD_VALUE', detailsIncludeForeign: 'scenario' } },
      { field: 'scenario_ids', in: 'body', build: (o, f, n) => ({ body: { name: `Suite ${n}`, scenario_ids: [o.scenario, f.scenario] } }), expect: { status: 400, code: 'INVALID_FIELD_VALUE', detailsIncludeForeign: 'scenario' } },
    ],
  },
  'GET /api/v1/test-suites': { list: 'suite' },
  'GET /api/v1/test-suites/{id}': { params: { id: 'suite' } },
  'PUT /api/v1/test-suites/{id}': {
    params: { id: 'suite' }, mutates: true,
    body: (o, n) => ({ name: `Hijacked ${n}`, scenario_ids: [o.scenario] }),
    refs: [
      { field: 'scenario_ids', in: 'body', build: (o, f) => ({ id: o.suite, body: { scenario_ids: [f.scenario] } }), expect: { status: 400, code: 'INVALID_FIELD_VALUE', detailsIncludeForeign: 'scenario' } },
    ],
  },
  'DELETE /api/v1/test-suites/{id}': { params: { id: 'suite' }, mutates: true },

  // Webhooks
  'POST /api/v1/webhooks': {
    creates: 'webhook',
    body: (o, n) => ({ url: `${HOOK_URL}/${n}`, agent_id: o.agent }),
    refs: [
      { field: 'agent_id', in: 'body', build: (_o, f, n) => ({ body: { url: `${HOOK_URL}/${n}`, agent_id: f.agent } }), expect: { status: 400, code: 'AGENT_NOT_FOUND' } },
    ],
  },
  'GET /api/v1/webhooks': {
    list: 'webhook',
    refs: [{ field: 'agent_id', in: 'query', build: (_o, f) => ({ query: `agent_id=${f.agent}` }), expect: { filter: 'agent' } }],
  },
  'GET /api/v1/webhooks/{id}': { params: { id: 'webhook' } },
  'PATCH /api/v1/webhooks/{id}': { params: { id: 'webhook' }, mutates: true, body: () => ({ url: `${HOOK_URL}/hijacked`, secret: 'stolen-secret', is_active: false }) },
  'DELETE /api/v1/webhooks/{id}': { params: { id: 'webhook' }, mutates: true },
  'GET /api/v1/webhooks/{id}/deliveries': { params: { id: 'webhook' }, list: 'delivery', query: () => 'event=ping' },
  'GET /api/v1/webhooks/{id}/deliveries/{delivery_id}': { params: { id: 'webhook', delivery_id: 'delivery' } },
  'POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver': { params: { id: 'webhook', delivery_id: 'delivery' }, mutates: true },
  'POST /api/v1/webhooks/{id}/test': { params: { id: 'webhook' }, mutates: true, creates: 'delivery' },

  // Dashboard sessions
  // Schedules
  'POST /api/v1/schedules': {
    creates: 'schedule',
    body: (o) => ({ agent_id: o.agent, test_suite_id: o.suite, cron: '0 3 * * *', is_active: false }),
    refs: [
      { field: 'agent_id', in: 'body', build: (_o, f) => ({ body: { agent_id: f.agent, cron: '0 3 * * *', is_active: false } }), expect: { status: 400, code: 'AGENT_NOT_FOUND' } },
      { field: 'test_suite_id', in: 'body', build: (o, f) => ({ body: { agent_id: o.agent, test_suite_id: f.suite, cron: '0 3 * * *', is_active: false } }), expect: { status: 400, code: 'NOT_FOUND' } },
    ],
  },
  'GET /api/v1/schedules': { list: 'schedule' },
  'GET /api/v1/schedules/{id}': { params: { id: 'schedule' } },
  'PATCH /api/v1/schedules/{id}': {
    params: { id: 'schedule' }, mutates: true, body: () => ({ cron: '0 4 * * *', is_active: false }),
    refs: [
      { field: 'agent_id', in: 'body', build: (o, f) => ({ id: o.schedule, body: { agent_id: f.agent } }), expect: { status: 400, code: 'AGENT_NOT_FOUND' } },
      { field: 'test_suite_id', in: 'body', build: (o, f) => ({ id: o.schedule, body: { test_suite_id: f.suite } }), expect: { status: 400, code: 'NOT_FOUND' } },
    ],
  },
  'DELETE /api/v1/schedules/{id}': { params: { id: 'schedule' }, mutates: true },
  'GET /api/v1/schedules/{id}/firings': { params: { id: 'schedule' } },

  // Generated scenarios (no model is configured in the contract tests: a valid request is 409 INVALID_STATE)
  'POST /api/v1/scenarios/generate': {
    body: (o) => ({ description: 'A receptionist', count: 1, agent_id: o.agent }),
    refs: [
      { field: 'agent_id', in: 'body', build: (_o, f) => ({ body: { description: 'A receptionist', count: 1, agent_id: f.agent } }), expect: { status: 400, code: 'AGENT_NOT_FOUND' } },
    ],
  },

  'POST /api/v1/sessions': { credentialField: 'api_key', self: true, body: (o) => ({ api_key: o.key }) },
  'GET /api/v1/sessions/current': { self: true },
  'DELETE /api/v1/sessions/current': { self: true },
};

/** Paths that need no API key (the OpenAPI document itself). */
export const PUBLIC_PATHS = new Set([`${API}/openapi.json`]);

// ---------------------------------------------------------------------------------------------------------
// Enumeration from the OpenAPI document
// ---------------------------------------------------------------------------------------------------------

export interface Operation {
  /** "METHOD /api/v1/path/{param}" */
  label: string;
  method: string;
  path: string;
  pathParams: string[];
  queryParams: { name: string; schema: any }[];
  bodySchema: any | null;
  /**
   * Another method of a documented path (see `withOtherMethods`): the app answers 405 METHOD_NOT_ALLOWED.
   * Not an operation of the document; exercised for auth and the envelope only.
   */
  methodNotAllowed: boolean;
  /** OpenAPI `security: []`: the operation takes no Authorization header (its credential, if any, is in the body). */
  public: boolean;
  spec: RouteSpec | null;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function resolveRef(doc: any, schema: any): any {
  let s = schema;
  for (let i = 0; s && typeof s === 'object' && typeof s.$ref === 'string' && i < 10; i++) {
    const parts = s.$ref.replace(/^#\//, '').split('/');
    s = parts.reduce((acc: any, p: string) => acc?.[p], doc);
  }
  return s;
}

export function operationsOf(doc: any): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const m of METHODS) {
      const op = item[m];
      if (!op) continue;
      const method = m.toUpperCase();
      const label = `${method} ${path}`;
      const params: any[] = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => resolveRef(doc, p));
      const body = op.requestBody ? resolveRef(doc, resolveRef(doc, op.requestBody).content?.['application/json']?.schema) ?? {} : null;
      out.push({
        label, method, path,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((x) => x[1]),
        queryParams: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: resolveRef(doc, p.schema) ?? {} })),
        bodySchema: body,
        methodNotAllowed: !(op.tags?.length > 0) && !MATRIX[label],
        public: Array.isArray(op.security) && op.security.length === 0,
        spec: MATRIX[label] ?? null,
      });
    }
  }
  return out.sort((a, b) => a.label.localeCompare(b.label));
}

/**
 * The other methods of every documented path: the app answers them 405 METHOD_NOT_ALLOWED (after
 * authentication). They are exercised for auth and the envelope, whether or not the document lists them.
 */
export function withOtherMethods(ops: Operation[]): Operation[] {
  const out = [...ops];
  const byPath = new Map<string, Set<string>>();
  for (const op of ops) byPath.set(op.path, (byPath.get(op.path) ?? new Set()).add(op.method));
  for (const [path, methods] of byPath) {
    for (const m of METHODS.map((x) => x.toUpperCase())) {
      if (methods.has(m) || (PUBLIC_PATHS.has(path) && m === 'GET')) continue;
      out.push({
        label: `${m} ${path}`, method: m, path, pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((x) => x[1]),
        queryParams: [], bodySchema: null, methodNotAllowed: true, public: false, spec: null,
      });
    }
  }
  return out.sort((a, b) => a.label.localeCompare(b.label));
}

/** An app without a database, only to read its OpenAPI document at test-collection time. */
async function documentOnlyApp(): Promise<FastifyInstance> {
  const noDb = new Proxy({}, { get: () => { throw new Error('the document-only app has no database'); } }) as unknown as Database;
  const config = loadConfig({ REHEARSAL_SECRET_KEY: generateSecret() });
  const app = await buildApp({ config, db: noDb, clock: systemClock, box: createSecretBox(generateSecret()), hooks: noopRunPorts(), adapters: {} });
  await app.ready();
  return app;
}

export async function fetchOpenApi(app: FastifyInstance): Promise<any> {
  const res = await app.inject({ method: 'GET', url: `${API}/openapi.json` });
  if (res.statusCode !== 200) throw new Error(`GET ${API}/openapi.json → ${res.statusCode}`);
  return JSON.parse(res.body);
}

let cachedDoc: Promise<any> | null = null;
/** The app's OpenAPI document, read once per test file (at collection time, so `it.each` can use it). */
export function openApiDocument(): Promise<any> {
  cachedDoc ??= (async () => {
    const app = await documentOnlyApp();
    try {
      return await fetchOpenApi(app);
    } finally {
      await app.close();
    }
  })();
  return cachedDoc;
}

/** Every operation of the OpenAPI document. Add `withOtherMethods` for the 405s. */
export async function enumerateOperations(): Promise<Operation[]> {
  return operationsOf(await openApiDocument());
}

const REF_FIELD = /(^|_)ids?$/;

/**
 * Why the matrix cannot exercise the document's operations (empty when it can). Each problem names the
 * route, so a new endpoint fails here until its security cases are written.
 */
export function coverageProblems(ops: Operation[]): string[] {
  const out: string[] = [];
  const labels = new Set(ops.map((o) => o.label));
  for (const label of Object.keys(MATRIX)) if (!labels.has(label)) out.push(`${label}: in the matrix but not in the OpenAPI document`);
  for (const op of ops) {
    if (op.methodNotAllowed) continue;
    const s = op.spec;
    if (!s) { out.push(`${op.label}: not in the contract-test matrix (test/contract/routes.ts): add how to exercise it`); continue; }
    for (const p of op.pathParams) if (!s.params?.[p]) out.push(`${op.label}: path parameter {${p}} names no resource kind in the matrix`);
    for (const p of Object.keys(s.params ?? {})) if (!op.pathParams.includes(p)) out.push(`${op.label}: matrix names a path parameter {${p}} the route does not have`);
    if (op.bodySchema && !s.body) out.push(`${op.label}: takes a body but the matrix has no valid body for it`);
    if (!op.bodySchema && s.body) out.push(`${op.label}: the matrix has a body but the route takes none`);
    const refFields = new Set((s.refs ?? []).map((r) => `${r.in}:${r.field}`));
    const bodyProps = Object.keys(op.bodySchema?.properties ?? {});
    for (const f of bodyProps) if (f !== 'id' && REF_FIELD.test(f) && !refFields.has(`body:${f}`)) out.push(`${op.label}: body field ${f} references a resource but has no cross-organization case`);
    for (const q of op.queryParams) if (q.name !== 'id' && REF_FIELD.test(q.name) && !refFields.has(`query:${q.name}`)) out.push(`${op.label}: query parameter ${q.name} references a resource but has no cross-organization case`);
    for (const r of s.refs ?? []) {
      const known = r.in === 'body' ? bodyProps.includes(r.field) : op.queryParams.some((q) => q.name === r.field);
      if (!known) out.push(`${op.label}: matrix ref ${r.in}:${r.field} is not a field of the route`);
    }
    if (op.method === 'GET' && op.pathParams.length === 0 && !s.list && !s.self && !s.aggregate) out.push(`${op.label}: a collection GET without a list kind in the matrix`);
    if (!s.params && !s.list && !s.creates && !s.refs?.length && !s.self && !s.aggregate) out.push(`${op.label}: the matrix gives it no cross-organization case`);
    if (op.public && !s.credentialField) out.push(`${op.label}: public (security: []) but the matrix names no body credential field for the auth cases`);
    if (s.credentialField && !op.public) out.push(`${op.label}: the matrix names a body credential but the route is not public`);
    if (s.credentialField && !bodyProps.includes(s.credentialField)) out.push(`${op.label}: credential field ${s.credentialField} is not a body field`);
  }
  return out;
}

/** The URL of an operation with its path parameters filled from fixtures (or given values). */
export function urlOf(op: Operation, own: Fixtures | null, override: Record<string, string> = {}, query = ''): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, p: string) => {
    if (override[p] !== undefined) return override[p];
    const kind = op.spec?.params?.[p];
    return own && kind ? idOf(own, kind) : '00000000-0000-7000-8000-000000000000';
  });
  return query ? `${path}?${query}` : path;
}
