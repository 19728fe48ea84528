import { RehearsalTimeoutError } from './errors.js';
import type { Operations, Run } from './openapi-types.js';
import { paginate } from './paginate.js';
import { abortError, createTransport, type FetchLike, type OperationKey, type RequestOptions, type RetryOptions, type Transport } from './transport.js';

type Body<K extends OperationKey> = Operations[K]['body'];
type Query<K extends OperationKey> = Operations[K]['query'];
type Res<K extends OperationKey> = Promise<Operations[K]['response']>;
/** A list's filters: its query without the paging parameters, which the iterator drives. */
type Filters<K extends OperationKey> = Omit<Query<K>, 'limit' | 'offset'>;

export interface ClientOptions {
  /** The service address, e.g. `http://127.0.0.1:3000` (a trailing `/api/v1` is accepted too). */
  baseUrl: string;
  /** `sk_live_…` */
  apiKey: string;
  /** Defaults to the global fetch; tests route it through `app.inject`. */
  fetch?: FetchLike;
  /** 429 handling; `false` disables retries. */
  retry?: RetryOptions | false;
  userAgent?: string;
}

export interface WaitOptions {
  /** Time between polls (default 5000 ms, the spec's recommendation). */
  intervalMs?: number;
  /** Total wait before a RehearsalTimeoutError (default 300000 ms, as the spec's sample clients). */
  timeoutMs?: number;
  /** Called with every polled state, the final one included. */
  onProgress?: (run: Run) => void;
  signal?: AbortSignal;
}

/**
 * OpenAPI tags of routes an API-key client has no use for: the dashboard's cookie sign-in. The generated
 * types leave them out and the drift test does not ask for methods for them.
 */
export const BROWSER_ONLY_TAGS: readonly string[] = ['Sessions'];

export const FINAL_RUN_STATUSES: ReadonlySet<Run['status']> = new Set(['completed', 'failed', 'canceled']);

/**
 * Which client method serves each operation of the OpenAPI document. Typed as a complete record over the
 * generated operations, so a new route does not compile until it has a method; a test checks that every
 * named method exists and reaches its operation.
 */
export const OPERATION_METHODS = {
  'GET /api/v1/api-keys': 'apiKeys.list',
  'POST /api/v1/api-keys': 'apiKeys.create',
  'DELETE /api/v1/api-keys/{id}': 'apiKeys.revoke',
  'GET /api/v1/agents': 'agents.list',
  'POST /api/v1/agents': 'agents.create',
  'GET /api/v1/agents/{id}': 'agents.get',
  'PUT /api/v1/agents/{id}': 'agents.update',
  'DELETE /api/v1/agents/{id}': 'agents.delete',
  'POST /api/v1/agents/{id}/validate': 'agents.validate',
  'GET /api/v1/runs': 'runs.list',
  'POST /api/v1/runs': 'runs.create',
  'GET /api/v1/runs/{id}': 'runs.get',
  'GET /api/v1/runs/{id}/results': 'runs.results',
  'POST /api/v1/runs/{id}/cancel': 'runs.cancel',
  'GET /api/v1/runs/{id}/scenarios': 'runs.scenarios',
  'GET /api/v1/runs/{id}/comparison': 'runs.comparison',
  'GET /api/v1/scenario-runs': 'scenarioRuns.list',
  'GET /api/v1/scenario-runs/{id}': 'scenarioRuns.get',
  'POST /api/v1/scenario-runs/{id}/reviews': 'scenarioRuns.review',
  'GET /api/v1/scenario-runs/{id}/reviews': 'scenarioRuns.reviews',
  'GET /api/v1/judge/agreement': 'judge.agreement',
  'GET /api/v1/scenario-runs/{id}/diff': 'scenarioRuns.diff',
  'GET /api/v1/scenarios': 'scenarios.list',
  'POST /api/v1/scenarios': 'scenarios.create',
  'GET /api/v1/scenarios/{id}': 'scenarios.get',
  'PUT /api/v1/scenarios/{id}': 'scenarios.update',
  'DELETE /api/v1/scenarios/{id}': 'scenarios.delete',
  'POST /api/v1/scenarios/{id}/duplicate': 'scenarios.duplicate',
  'POST /api/v1/scenarios/generate': 'scenarios.generate',
  'GET /api/v1/schedules': 'schedules.list',
  'POST /api/v1/schedules': 'schedules.create',
  'GET /api/v1/schedules/{id}': 'schedules.get',
  'PATCH /api/v1/schedules/{id}': 'schedules.update',
  'DELETE /api/v1/schedules/{id}': 'schedules.delete',
  'GET /api/v1/schedules/{id}/firings': 'schedules.firings',
  'GET /api/v1/test-suites': 'testSuites.list',
  'POST /api/v1/test-suites': 'testSuites.create',
  'GET /api/v1/test-suites/{id}': 'testSuites.get',
  'PUT /api/v1/test-suites/{id}': 'testSuites.update',
  'DELETE /api/v1/test-suites/{id}': 'testSuites.delete',
  'GET /api/v1/webhooks': 'webhooks.list',
  'POST /api/v1/webhooks': 'webhooks.create',
  'GET /api/v1/webhooks/{id}': 'webhooks.get',
  'PATCH /api/v1/webhooks/{id}': 'webhooks.update',
  'DELETE /api/v1/webhooks/{id}': 'webhooks.delete',
  'GET /api/v1/webhooks/{id}/deliveries': 'webhooks.deliveries',
  'GET /api/v1/webhooks/{id}/deliveries/{delivery_id}': 'webhooks.getDelivery',
  'POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver': 'webhooks.redeliver',
  'POST /api/v1/webhooks/{id}/test': 'webhooks.test',
} as const satisfies Record<OperationKey, string>;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(t); reject(abortError()); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** A typed client for the Rehearsal API: one method per operation, grouped by resource. */
export class RehearsalClient {
  private readonly call: Transport;

  constructor(opts: ClientOptions) {
    this.call = createTransport(opts);
  }

  readonly agents = {
    list: (query: Query<'GET /api/v1/agents'> = {}, o?: RequestOptions): Res<'GET /api/v1/agents'> => this.call('GET /api/v1/agents', { ...o, query }),
    iterate: (filters: Filters<'GET /api/v1/agents'> = {}, o?: RequestOptions) =>
      paginate(async (page) => { const r = await this.agents.list({ ...filters, ...page }, o); return { items: r.agents, total: r.total }; }),
    get: (id: string, o?: RequestOptions): Res<'GET /api/v1/agents/{id}'> => this.call('GET /api/v1/agents/{id}', { ...o, params: { id } }),
    create: (body: Body<'POST /api/v1/agents'>, o?: RequestOptions): Res<'POST /api/v1/agents'> => this.call('POST /api/v1/agents', { ...o, body }),
    update: (id: string, body: Body<'PUT /api/v1/agents/{id}'>, o?: RequestOptions): Res<'PUT /api/v1/agents/{id}'> => this.call('PUT /api/v1/agents/{id}', { ...o, params: { id }, body }),
    delete: (id: string, o?: RequestOptions): Res<'DELETE /api/v1/agents/{id}'> => this.call('DELETE /api/v1/agents/{id}', { ...o, params: { id } }),
    /** Checks the agent's credentials with its provider; the outcome is in the body, not the status. */
    validate: (id: string, o?: RequestOptions): Res<'POST /api/v1/agents/{id}/validate'> => this.call('POST /api/v1/agents/{id}/validate', { ...o, params: { id } }),
  };

  readonly scenarios = {
    list: (query: Query<'GET /api/v1/scenarios'> = {}, o?: RequestOptions): Res<'GET /api/v1/scenarios'> => this.call('GET /api/v1/scenarios', { ...o, query }),
    iterate: (filters: Filters<'GET /api/v1/scenarios'> = {}, o?: RequestOptions) =>
      paginate(async (page) => { const r = await this.scenarios.list({ ...filters, ...page }, o); return { items: r.scenarios, total: r.total }; }),
    get: (id: string, o?: RequestOptions): Res<'GET /api/v1/scenarios/{id}'> => this.call('GET /api/v1/scenarios/{id}', { ...o, params: { id } }),
    create: (body: Body<'POST /api/v1/scenarios'>, o?: RequestOptions): Res<'POST /api/v1/scenarios'> => this.call('POST /api/v1/scenarios', { ...o, body }),
    update: (id: string, body: Body<'PUT /api/v1/scenarios/{id}'>, o?: RequestOptions): Res<'PUT /api/v1/scenarios/{id}'> => this.call('PUT /api/v1/scenarios/{id}', { ...o, params: { id }, body }),
    delete: (id: string, o?: RequestOptions): Res<'DELETE /api/v1/scenarios/{id}'> => this.call('DELETE /api/v1/scenarios/{id}', { ...o, params: { id } }),
    duplicate: (id: string, o?: RequestOptions): Res<'POST /api/v1/scenarios/{id}/duplicate'> => this.call('POST /api/v1/scenarios/{id}/duplicate', { ...o, params: { id } }),
    /** Drafts from a description or system prompt; nothing is saved. */
    generate: (body: Body<'POST /api/v1/scenarios/generate'>, o?: RequestOptions): Res<'POST /api/v1/scenarios/generate'> => this.call('POST /api/v1/scenarios/generate', { ...o, body }),
  };

  readonly testSuites = {
    list: (query: Query<'GET /api/v1/test-suites'> = {}, o?: RequestOptions): Res<'GET /api/v1/test-suites'> => this.call('GET /api/v1/test-suites', { ...o, query }),
    iterate: (o?: RequestOptions) =>
      paginate(async (page) => { const r = await this.testSuites.list(page, o); return { items: r.test_suites, total: r.total }; }),
    get: (id: string, o?: RequestOptions): Res<'GET /api/v1/test-suites/{id}'> => this.call('GET /api/v1/test-suites/{id}', { ...o, params: { id } }),
    create: (body: Body<'POST /api/v1/test-suites'>, o?: RequestOptions): Res<'POST /api/v1/test-suites'> => this.call('POST /api/v1/test-suites', { ...o, body }),
    update: (id: string, body: Body<'PUT /api/v1/test-suites/{id}'>, o?: RequestOptions): Res<'PUT /api/v1/test-suites/{id}'> => this.call('PUT /api/v1/test-suites/{id}', { ...o, params: { id }, body }),
    delete: (id: string, o?: RequestOptions): Res<'DELETE /api/v1/test-suites/{id}'> => this.call('DELETE /api/v1/test-suites/{id}', { ...o, params: { id } }),
  };

  readonly runs = {
    list: (query: Query<'GET /api/v1/runs'> = {}, o?: RequestOptions): Res<'GET /api/v1/runs'> => this.call('GET /api/v1/runs', { ...o, query }),
    iterate: (filters: Filters<'GET /api/v1/runs'> = {}, o?: RequestOptions) =>
      paginate(async (page) => { const r = await this.runs.list({ ...filters, ...page }, o); return { items: r.runs, total: r.total }; }),
    /** `id`: the run's UUID or its human id `TR-<n>`. */
    get: (id: string, o?: RequestOptions): Res<'GET /api/v1/runs/{id}'> => this.call('GET /api/v1/runs/{id}', { ...o, params: { id } }),
    create: (body: Body<'POST /api/v1/runs'>, o?: RequestOptions): Res<'POST /api/v1/runs'> => this.call('POST /api/v1/runs', { ...o, body }),
    /** POST /runs?dry_run=true: the plan and cost estimate; no run is created. */
    plan: (body: Body<'POST /api/v1/runs'>, o?: RequestOptions): Promise<unknown> => this.call('POST /api/v1/runs', { ...o, body, query: { dry_run: true } } as never),
    results: (id: string, query: Query<'GET /api/v1/runs/{id}/results'> = {}, o?: RequestOptions): Res<'GET /api/v1/runs/{id}/results'> =>
      this.call('GET /api/v1/runs/{id}/results', { ...o, params: { id }, query }),
    /** Every scenario result of a run, in suite order, 500 per request. */
    iterateResults: (id: string, filters: Filters<'GET /api/v1/runs/{id}/results'> = {}, o?: RequestOptions) =>
      paginate(async (page) => { const r = await this.runs.results(id, { ...filters, ...page }, o); return { items: r.results, total: r.results_total }; }, 500),
    cancel: (id: string, o?: RequestOptions): Res<'POST /api/v1/runs/{id}/cancel'> => this.call('POST /api/v1/runs/{id}/cancel', { ...o, params: { id } }),
    scenarios: (id: string, query: Query<'GET /api/v1/runs/{id}/scenarios'> = {}, o?: RequestOptions): Res<'GET /api/v1/runs/{id}/scenarios'> =>
      this.call('GET /api/v1/runs/{id}/scenarios', { ...o, params: { id }, query }),
    /** Every per-scenario aggregate of a run, page by page. */
    iterateScenarios: (id: string, o?: RequestOptions) =>
      paginate(async (page) => { const r = await this.runs.scenarios(id, page, o); return { items: r.scenarios, total: r.total }; }, 500),
    comparison: (id: string, query: Query<'GET /api/v1/runs/{id}/comparison'> = {}, o?: RequestOptions): Res<'GET /api/v1/runs/{id}/comparison'> =>
      this.call('GET /api/v1/runs/{id}/comparison', { ...o, params: { id }, query }),
  };

  readonly scenarioRuns = {
    list: (query: Query<'GET /api/v1/scenario-runs'> & { test_run_id: string }, o?: RequestOptions): Res<'GET /api/v1/scenario-runs'> => this.call('GET /api/v1/scenario-runs', { ...o, query }),
    iterate: (filters: Filters<'GET /api/v1/scenario-runs'> & { test_run_id: string }, o?: RequestOptions) =>
      paginate(async (page) => { const r = await this.scenarioRuns.list({ ...filters, ...page }, o); return { items: r.scenario_runs, total: r.total }; }),
    get: (id: string, o?: RequestOptions): Res<'GET /api/v1/scenario-runs/{id}'> => this.call('GET /api/v1/scenario-runs/{id}', { ...o, params: { id } }),
    review: (id: string, body: Body<'POST /api/v1/scenario-runs/{id}/reviews'>, o?: RequestOptions): Res<'POST /api/v1/scenario-runs/{id}/reviews'> =>
      this.call('POST /api/v1/scenario-runs/{id}/reviews', { ...o, params: { id }, body }),
    reviews: (id: string, query: Query<'GET /api/v1/scenario-runs/{id}/reviews'> = {}, o?: RequestOptions): Res<'GET /api/v1/scenario-runs/{id}/reviews'> =>
      this.call('GET /api/v1/scenario-runs/{id}/reviews', { ...o, params: { id }, query }),
    diff: (id: string, against: string, o?: RequestOptions): Res<'GET /api/v1/scenario-runs/{id}/diff'> =>
      this.call('GET /api/v1/scenario-runs/{id}/diff', { ...o, params: { id }, query: { against } }),
  };

  readonly judge = {
    agreement: (query: Query<'GET /api/v1/judge/agreement'> = {}, o?: RequestOptions): Res<'GET /api/v1/judge/agreement'> =>
      this.call('GET /api/v1/judge/agreement', { ...o, query }),
  };

  readonly webhooks = {
    list: (query: Query<'GET /api/v1/webhooks'> = {}, o?: RequestOptions): Res<'GET /api/v1/webhooks'> => this.call('GET /api/v1/webhooks', { ...o, query }),
    iterate: (filters: Filters<'GET /api/v1/webhooks'> = {}, o?: RequestOptions) =>
      paginate(async (page) => { const r = await this.webhooks.list({ ...filters, ...page }, o); return { items: r.webhooks, total: r.total }; }),
    get: (id: string, o?: RequestOptions): Res<'GET /api/v1/webhooks/{id}'> => this.call('GET /api/v1/webhooks/{id}', { ...o, params: { id } }),
    create: (body: Body<'POST /api/v1/webhooks'>, o?: RequestOptions): Res<'POST /api/v1/webhooks'> => this.call('POST /api/v1/webhooks', { ...o, body }),
    update: (id: string, body: Body<'PATCH /api/v1/webhooks/{id}'>, o?: RequestOptions): Res<'PATCH /api/v1/webhooks/{id}'> => this.call('PATCH /api/v1/webhooks/{id}', { ...o, params: { id }, body }),
    delete: (id: string, o?: RequestOptions): Res<'DELETE /api/v1/webhooks/{id}'> => this.call('DELETE /api/v1/webhooks/{id}', { ...o, params: { id } }),
    deliveries: (id: string, query: Query<'GET /api/v1/webhooks/{id}/deliveries'> = {}, o?: RequestOptions): Res<'GET /api/v1/webhooks/{id}/deliveries'> =>
      this.call('GET /api/v1/webhooks/{id}/deliveries', { ...o, params: { id }, query }),
    iterateDeliveries: (id: string, filters: Filters<'GET /api/v1/webhooks/{id}/deliveries'> = {}, o?: RequestOptions) =>
      paginate(async (page) => { const r = await this.webhooks.deliveries(id, { ...filters, ...page }, o); return { items: r.deliveries, total: r.total }; }),
    getDelivery: (id: string, deliveryId: string, o?: RequestOptions): Res<'GET /api/v1/webhooks/{id}/deliveries/{delivery_id}'> =>
      this.call('GET /api/v1/webhooks/{id}/deliveries/{delivery_id}', { ...o, params: { id, delivery_id: deliveryId } }),
    redeliver: (id: string, deliveryId: string, o?: RequestOptions): Res<'POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver'> =>
      this.call('POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver', { ...o, params: { id, delivery_id: deliveryId } }),
    /** Sends a `ping` event now and answers the delivery with its attempt. */
    test: (id: string, o?: RequestOptions): Res<'POST /api/v1/webhooks/{id}/test'> => this.call('POST /api/v1/webhooks/{id}/test', { ...o, params: { id } }),
  };

  readonly schedules = {
    list: (query: Query<'GET /api/v1/schedules'> = {}, o?: RequestOptions): Res<'GET /api/v1/schedules'> => this.call('GET /api/v1/schedules', { ...o, query }),
    get: (id: string, o?: RequestOptions): Res<'GET /api/v1/schedules/{id}'> => this.call('GET /api/v1/schedules/{id}', { ...o, params: { id } }),
    create: (body: Body<'POST /api/v1/schedules'>, o?: RequestOptions): Res<'POST /api/v1/schedules'> => this.call('POST /api/v1/schedules', { ...o, body }),
    update: (id: string, body: Body<'PATCH /api/v1/schedules/{id}'>, o?: RequestOptions): Res<'PATCH /api/v1/schedules/{id}'> => this.call('PATCH /api/v1/schedules/{id}', { ...o, params: { id }, body }),
    delete: (id: string, o?: RequestOptions): Res<'DELETE /api/v1/schedules/{id}'> => this.call('DELETE /api/v1/schedules/{id}', { ...o, params: { id } }),
    firings: (id: string, query: Query<'GET /api/v1/schedules/{id}/firings'> = {}, o?: RequestOptions): Res<'GET /api/v1/schedules/{id}/firings'> =>
      this.call('GET /api/v1/schedules/{id}/firings', { ...o, params: { id }, query }),
  };

  readonly apiKeys = {
    list: (query: Query<'GET /api/v1/api-keys'> = {}, o?: RequestOptions): Res<'GET /api/v1/api-keys'> => this.call('GET /api/v1/api-keys', { ...o, query }),
    iterate: (o?: RequestOptions) =>
      paginate(async (page) => { const r = await this.apiKeys.list(page, o); return { items: r.api_keys, total: r.total }; }),
    /** The full key is in this response only. */
    create: (body: Body<'POST /api/v1/api-keys'>, o?: RequestOptions): Res<'POST /api/v1/api-keys'> => this.call('POST /api/v1/api-keys', { ...o, body }),
    revoke: (id: string, o?: RequestOptions): Res<'DELETE /api/v1/api-keys/{id}'> => this.call('DELETE /api/v1/api-keys/{id}', { ...o, params: { id } }),
  };

  /**
   * Polls a run until it is completed, failed or canceled and returns that state. Throws
   * RehearsalTimeoutError (with the last state seen) when `timeoutMs` passes first.
   */
  async waitForRun(id: string, opts: WaitOptions = {}): Promise<Run> {
    const intervalMs = opts.intervalMs ?? 5000;
    const timeoutMs = opts.timeoutMs ?? 300_000;
    const deadline = Date.now() + timeoutMs;
    let last: Run | null = null;
    for (;;) {
      last = await this.runs.get(id, { signal: opts.signal });
      opts.onProgress?.(last);
      if (FINAL_RUN_STATUSES.has(last.status)) return last;
      const left = deadline - Date.now();
      if (left <= 0) throw new RehearsalTimeoutError(`run ${last.test_run_id} is still ${last.status} after ${Math.round(timeoutMs / 1000)} s`, last);
      await sleep(Math.min(intervalMs, left), opts.signal);
    }
  }
}
