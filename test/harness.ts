import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig, type Config } from '../src/config.js';
import { openEmbedded, openPostgres, type Database } from '../src/db/client.js';
import type { Deps, RunHooks } from '../src/deps.js';
import { withRunPorts, type CoreDeps } from '../src/run-ports.js';
import { systemClock, type Clock } from '../src/lib/clock.js';
import { createSecretBox, generateSecret } from '../src/lib/secret-box.js';
import { createApiKey } from '../src/modules/api-keys/api-keys.service.js';
import { findOrCreateOrganization } from '../src/modules/organizations/organizations.service.js';
import { syncBuiltinLibrary } from '../src/modules/scenarios/builtin-sync.js';
import { createJobQueue } from '../src/jobs/queue.js';
import { LocalRuns } from '../src/modules/runs/local-runs.js';
import { createRunWorker, type RunWorkerOptions, type RunWorker } from '../src/modules/runs/worker.js';
import { createAdapters } from '../src/providers/registry.js';
import { registerOps } from '../src/http/ops.js';
import { createMetrics } from '../src/lib/metrics.js';
import type { LoopLagMonitor } from '../src/lib/loop-lag.js';
import { createDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions } from '../src/modules/webhooks/delivery-worker.js';

/**
 * A fresh database per test file: in-memory PGlite by default, a throwaway PostgreSQL database
 * when DATABASE_URL is set (the suite runs on both drivers).
 */
export async function freshDatabase(): Promise<{ db: Database; drop: () => Promise<void> }> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const db = await openEmbedded(null);
    return { db, drop: async () => {} };
  }
  const name = `rehearsal_t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  const db = await openPostgres(u.toString());
  return {
    db,
    drop: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** The run ports of an app without a worker or queue: runs stay pending, and nothing is recorded for them. */
export const noopRunPorts = (): RunHooks => ({
  enqueueRun: async () => {},
  onRunFinalized: async () => {},
  afterRunCreated: () => {},
  afterRunCanceled: () => {},
});

export interface TestContext {
  app: FastifyInstance;
  deps: Deps;
  key: string;
  orgId: string;
  engine: RunWorker | null;
  /** Present with `engine` or `webhooks`; its worker is started unless `webhooks.worker` is false. */
  webhooks: DeliveryWorker | null;
  newOrg(name?: string): Promise<{ orgId: string; key: string }>;
  call(method: string, url: string, opts?: { body?: unknown; key?: string | null; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Record<string, any> }>;
  close(): Promise<void>;
}

export async function createTestContext(overrides: { env?: Record<string, string>; clock?: Clock; config?: Partial<Config>; adapters?: Deps['adapters']; engine?: Partial<RunWorkerOptions> | true; webhooks?: Partial<DeliveryWorkerOptions> & { worker?: boolean }; webhookHttp?: Deps['webhookHttp']; lag?: LoopLagMonitor; ops?: { isDraining?: () => boolean } } = {}): Promise<TestContext> {
  const { db, drop } = await freshDatabase();
  await db.migrate();
  await syncBuiltinLibrary(db, new Date());
  const config = { ...loadConfig({ REHEARSAL_SECRET_KEY: generateSecret(), ...overrides.env }), ...overrides.config };
  const core: CoreDeps = {
    config, db, clock: overrides.clock ?? systemClock, box: createSecretBox(generateSecret()), adapters: overrides.adapters ?? createAdapters(),
    webhookHttp: overrides.webhookHttp, lag: overrides.lag, ...(overrides.ops ? { metrics: createMetrics(db, overrides.lag) } : {}),
  };
  let deps: Deps = { ...core, hooks: noopRunPorts() };
  let engine: RunWorker | null = null;
  let webhookEngine: DeliveryWorker | null = null;
  let stopQueue = async () => {};
  if (overrides.engine || overrides.webhooks) {
    const queue = createJobQueue(db, { supervise: true, onError: () => {} });
    await queue.start();
    stopQueue = () => queue.stop();
    const log = { error: (obj: unknown, msg: string) => console.error(msg, obj) };
    const local = new LocalRuns();
    const wired = withRunPorts(core, queue, local);
    // webhooks without a run worker: run events are recorded, runs are not enqueued
    deps = overrides.engine ? wired : { ...wired, hooks: { ...wired.hooks, enqueueRun: noopRunPorts().enqueueRun } };
    if (overrides.engine) {
      engine = createRunWorker(deps, queue, local, log, overrides.engine === true ? {} : overrides.engine);
      engine.start();
    }
    webhookEngine = createDeliveryWorker(deps, queue, log, { pollIntervalMs: 100, ...overrides.webhooks });
    if (overrides.webhooks?.worker !== false) webhookEngine.startWorker();
  }
  const app = await buildApp(deps);
  if (overrides.ops) registerOps(app, db, deps.metrics, overrides.ops.isDraining);
  await app.ready();
  let orgCounter = 0;
  const newOrg = async (name?: string) => {
    const { org } = await findOrCreateOrganization(db, name ?? `org-${++orgCounter}-${Math.random().toString(36).slice(2, 8)}`, new Date());
    const k = await createApiKey(deps, { orgId: org.id }, { name: 'test' });
    return { orgId: org.id, key: k.key };
  };
  const first = await newOrg('acme');
  const call: TestContext['call'] = async (method, url, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? first.key : opts.key;
    if (key) headers.authorization = `Bearer ${key}`;
    let payload: string | undefined;
    if (opts.body !== undefined) {
      payload = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.inject({ method: method as any, url, headers, payload });
    let body: any = res.body;
    try { body = res.body ? JSON.parse(res.body) : null; } catch { /* not JSON */ }
    return { status: res.statusCode, body, headers: res.headers };
  };
  return {
    app, deps, key: first.key, orgId: first.orgId, newOrg, call,
    engine, webhooks: webhookEngine,
    close: async () => {
      await app.close();
      await engine?.stop();
      await webhookEngine?.stop();
      await stopQueue();
      await db.close();
      await drop();
    },
  };
}

/** Polls a run until it reaches a final state (or the deadline passes). */
export async function waitForRun(t: TestContext, runId: string, timeoutMs = 30_000, key?: string): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.call('GET', `/api/v1/runs/${runId}`, key ? { key } : {});
    if (['completed', 'failed', 'canceled'].includes(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${res.body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function expectError(res: { status: number; body: any }, status: number, code: string) {
  if (res.status !== status || res.body?.code !== code || typeof res.body?.error !== 'string') {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(res.body)}`);
  }
}
