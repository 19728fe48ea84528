import { mulberry32 } from '../mulberry32.js';
import { randomUUID } from 'node:crypto';
import type { FakeOpenAiServer } from '../fakes/openai-agent.js';

/**
 * What the chaos suite asks of the service: agents on faulty fakes, scripted scenarios (graded by
 * deterministic checks, so no LLM is involved and every outcome comes from the agent and the engine),
 * webhooks with different filters, and runs created through whichever API process is up.
 */
export type Call = (method: string, url: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: any }>;

/**
 * A caller that rides out a PostgreSQL restart: connection errors and 5xx are retried with the same
 * Idempotency-Key, so a POST whose first answer was lost cannot create a second run.
 */
export function resilientApi(base: string, key: string): Call {
  return async (method, url, body, headers = {}) => {
    const h: Record<string, string> = { authorization: `Bearer ${key}`, ...headers };
    if (body !== undefined) h['content-type'] = 'application/json';
    if (method === 'POST' && !h['idempotency-key']) h['idempotency-key'] = randomUUID();
    let last: unknown = null;
    for (let attempt = 0; attempt < 40; attempt++) {
      try {
        const res = await fetch(`${base}/api/v1${url}`, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(15_000) });
        const text = await res.text();
        const parsed = text ? JSON.parse(text) : null;
        if (res.status < 500) return { status: res.status, body: parsed };
        last = new Error(`${res.status} ${text.slice(0, 200)}`);
      } catch (err) {
        last = err;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`${method} ${url} kept failing: ${(last as Error)?.message ?? last}`);
  };
}

export const SCRIPT = ['Hello, I need an appointment', 'Tuesday works for me', 'At nine please', 'Thanks, goodbye'];

/** Webhook subscriptions: receiver path → filter. The checker derives "matching" from the stored rows. */
export interface Setup {
  agents: string[];
  suiteId: string;
  webhooks: Array<{ id: string; path: string }>;
}

export async function setUp(call: Call, fakes: FakeOpenAiServer[], receiverUrl: string, scenarioCount: number): Promise<Setup> {
  const agents: string[] = [];
  for (const [i, f] of fakes.entries()) {
    // a short conversation timeout: a hung agent request ends the conversation (as error) in seconds
    const a = await call('POST', '/agents', { provider: 'provider_4', name: `Chaos desk ${i}`, config: { base_url: f.baseUrl, model: 'desk', timeout_ms: 6000 } });
    if (a.status !== 201) throw new Error(`agent: ${JSON.stringify(a.body)}`);
    agents.push(a.body.id);
  }
  const ids: string[] = [];
  for (let i = 0; i < scenarioCount; i++) {
    const s = await call('POST', '/scenarios', {
      name: `Chaos scenario ${i}`, script: SCRIPT,
      criteria: [{ criterion: 'Confirms the booking', check: { type: 'contains', value: 'booked' } }],
    });
    if (s.status !== 201) throw new Error(`scenario: ${JSON.stringify(s.body)}`);
    ids.push(s.body.id);
  }
  const suite = await call('POST', '/test-suites', { name: 'Chaos suite', scenario_ids: ids });
  const hooks = [
    { path: '/org-all', body: {} },
    { path: '/agent-0', body: { agent_id: agents[0] } },
    { path: '/completed-only', body: { events: ['test_run_completed'] } },
  ];
  const webhooks: Setup['webhooks'] = [];
  for (const h of hooks) {
    const w = await call('POST', '/webhooks', { url: `${receiverUrl}${h.path}`, description: h.path, ...h.body });
    if (w.status !== 201) throw new Error(`webhook: ${JSON.stringify(w.body)}`);
    webhooks.push({ id: w.body.id, path: h.path });
  }
  return { agents, suiteId: suite.body.id, webhooks };
}

export type Fault = 'rate_limited_retry_after' | 'rate_limited' | 'server_error' | 'bad_gateway' | 'reset' | 'hang' | 'latency';
export const FAULTS: Fault[] = ['rate_limited_retry_after', 'rate_limited', 'server_error', 'bad_gateway', 'reset', 'hang', 'latency'];

/** One fault on the next agent request(s); returns what was done, for the tally. */
export function injectFault(f: FakeOpenAiServer, fault: Fault, rand: () => number): Fault {
  switch (fault) {
    // Retry-After asks for longer than the schedule's first 2 s: the client must wait it out
    case 'rate_limited_retry_after': f.inject('rate_limited', { times: 2, retryAfter: '3' }); break;
    case 'rate_limited': f.inject('rate_limited', { times: 2 }); break;
    case 'server_error': f.inject('server_error', { times: 2 }); break;
    case 'bad_gateway': f.inject('server_error', { times: 1, status: 503 }); break;
    case 'reset': f.inject('reset', { times: 2 }); break;
    case 'hang': f.inject('hang', { times: 1 }); break;
    case 'latency': f.setLatency(50 + Math.floor(rand() * 450)); break;
  }
  return fault;
}

export { mulberry32 as prng };

/**
 * Faults in the queue itself, as a dead worker or an exhausted job leaves it: the rows must still be
 * worked off (the sweepers). Applied with SQL to pg-boss's table; returns what was done, for the tally.
 */
export type QueueFault = 'spend_retries' | 'lose_scenario_job' | 'fail_scenario_job' | 'fail_delivery_job';
export const QUEUE_FAULTS: QueueFault[] = ['spend_retries', 'lose_scenario_job', 'fail_scenario_job', 'fail_delivery_job'];

export async function injectQueueFault(db: { query(text: string): Promise<unknown> }, fault: QueueFault): Promise<QueueFault> {
  const some = (name: string, state: string) => `id in (select id from pgboss.job where name = '${name}' and state = '${state}' limit 2)`;
  switch (fault) {
    case 'spend_retries': await db.query(`update pgboss.job set retry_count = retry_limit where state in ('created', 'retry', 'active')`); break;
    // fetched by a worker that died before claiming: pg-boss would hand it out again only after expiry
    case 'lose_scenario_job': await db.query(`update pgboss.job set state = 'active', started_on = now() where ${some('scenario-run', 'created')}`); break;
    case 'fail_scenario_job': await db.query(`update pgboss.job set state = 'failed', completed_on = now() where ${some('scenario-run', 'created')}`); break;
    case 'fail_delivery_job': await db.query(`update pgboss.job set state = 'failed', completed_on = now() where ${some('webhook-delivery', 'created')}`); break;
  }
  return fault;
}

/** The pid of a worker holding a webhook delivery right now (from its attempt lock token), if any. */
export async function deliveryHolder(db: { query(text: string): Promise<{ rows: any[] }> }): Promise<number | undefined> {
  const { rows } = await db.query(`select lock_token from webhook_deliveries where locked_until > now() and lock_token is not null limit 1`);
  return rows[0] ? Number(String(rows[0].lock_token).split('-')[0]) : undefined;
}
