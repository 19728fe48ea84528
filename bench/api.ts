/**
 * API latency and throughput under fixed-rate load (autocannon):
 * GET /runs/{id}, GET /runs/{id}/results?limit=500 on a run of 10,000 scenario runs, and POST /runs,
 * embedded (PGlite) and on PostgreSQL (`serve --no-worker`). Every measurement is repeated and the
 * median reported, since the machine is shared. autocannon's fixed rate is a quota per connection per
 * second (connections fire together at each second) and its coordinated-omission correction assumes a
 * 1 ms interval whatever the rate, so p99 here is that of small synchronized bursts, not of evenly
 * spaced arrivals; 10 connections keep the bursts small.
 *
 *   npx tsx bench/api.ts                                 # both modes, 3 repeats
 *   npx tsx bench/api.ts --mode postgres --repeats 1 --quick
 *
 * Targets (bench/RESULTS.md): GET /runs/{id} p99 ≤ 20 ms at 500 req/s on PostgreSQL; a results page of 500
 * in ≤ 100 ms p99.
 */
import { execSync } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { endCreatedRuns, seed, type Seeded } from './api-seed.js';
import { caller, startEmbeddedTarget, startPostgresTarget, type Target } from './api-targets.js';

const { values } = parseArgs({ options: {
  mode: { type: 'string', default: 'embedded,postgres' },
  repeats: { type: 'string', default: '3' },
  duration: { type: 'string', default: '10' },
  connections: { type: 'string', default: '10' },
  // shorter trials and ladders: a smoke run of the benchmark itself
  quick: { type: 'boolean', default: false },
} });
const REPEATS = Number(values.repeats);
const FIXED_S = values.quick ? 3 : Number(values.duration);
const STEP_S = values.quick ? 2 : 5;
const CONNECTIONS = Number(values.connections);

interface Endpoint { name: string; method: 'GET' | 'POST'; path: (s: Seeded) => string; body?: (s: Seeded) => unknown; creates?: boolean }
const ENDPOINTS: Record<string, Endpoint> = {
  run: { name: 'GET /runs/{id}', method: 'GET', path: (s) => `/runs/${s.smallRunId}` },
  results: { name: 'GET /runs/{id}/results?limit=500 (first page of 10,000)', method: 'GET', path: (s) => `/runs/${s.bigRunId}/results?limit=500` },
  resultsLast: { name: 'GET /runs/{id}/results?limit=500&offset=9500 (last page)', method: 'GET', path: (s) => `/runs/${s.bigRunId}/results?limit=500&offset=9500` },
  create: { name: 'POST /runs (suite of 10)', method: 'POST', path: () => '/runs', body: (s) => ({ agent_id: s.agentId, test_suite_id: s.suiteId, test_mode: 'full' }), creates: true },
};

// fixed-rate checks against the targets, then a ladder per endpoint for the highest rate it sustains
const FIXED: Array<{ ep: string; rate: number }> = [
  { ep: 'run', rate: 500 }, { ep: 'results', rate: 10 }, { ep: 'resultsLast', rate: 10 }, { ep: 'create', rate: 50 },
];
const LADDERS: Record<string, number[]> = values.quick
  ? { run: [250, 1000], results: [10, 40], create: [25, 100] }
  : { run: [50, 100, 175, 250, 375, 500, 750, 1000, 1500, 2000, 3000], results: [2, 5, 10, 15, 20, 30, 40, 60, 80], create: [5, 10, 15, 25, 35, 50, 75, 100, 150] };

interface Trial {
  rate: number; achieved: number; p50: number; p99: number; errors: number; non2xx: number; timeouts: number; total: number;
  /** CPU per request: the API process, and the PostgreSQL backends serving it (0 embedded: PGlite is in the API process) */
  api_cpu_ms: number; db_cpu_ms: number;
}

async function fire(t: Target, s: Seeded, ep: Endpoint, rate: number, seconds: number): Promise<Trial> {
  const cpu0 = await t.cpu();
  const r = await autocannon({
    url: `${t.base}/api/v1${ep.path(s)}`, method: ep.method,
    headers: { authorization: `Bearer ${t.key}`, ...(ep.body ? { 'content-type': 'application/json' } : {}) },
    body: ep.body ? JSON.stringify(ep.body(s)) : undefined,
    // autocannon's rate is a quota per connection per 1-second window: its connections fire together at
    // each second, so their number is the burst's concurrency. 10 keeps bursts modest (500 req/s of ~2 ms
    // requests is ~1 in flight on average) while leaving room for slow answers; never more than the rate,
    // since a connection given a quota of 0 is not limited at all.
    overallRate: rate, connections: Math.min(CONNECTIONS, rate), duration: seconds, timeout: 10,
  });
  const cpu1 = await t.cpu();
  if (ep.creates) await endCreatedRuns(t.sql);
  const per = (ms: number) => +(ms / Math.max(1, r.requests.total)).toFixed(2);
  return {
    rate, achieved: Math.round(r.requests.total / r.duration), p50: r.latency.p50, p99: r.latency.p99,
    errors: r.errors, non2xx: r.non2xx, timeouts: r.timeouts, total: r.requests.total,
    api_cpu_ms: per(cpu1.api - cpu0.api), db_cpu_ms: per(cpu1.db - cpu0.db),
  };
}

/** Kept up: no error of any kind, ≥ 95 % of the asked rate delivered, and no queue building up (p99 ≤ 500 ms). */
const sustained = (x: Trial) => x.errors + x.non2xx + x.timeouts === 0 && x.achieved >= 0.95 * x.rate && x.p99 <= 500;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

let current: Target | null = null;
// an interrupted benchmark still stops its server and drops its database
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => { void (current?.stop() ?? Promise.resolve()).finally(() => process.exit(130)); });

async function measureMode(start: () => Promise<Target>) {
  const t = (current = await start());
  const out: any = { mode: t.mode, fixed: {}, max: {} };
  try {
    const s = await seed(caller(t), t.sql);
    const check = await caller(t)('GET', `/runs/${s.bigRunId}/results?limit=500`);
    if (check.status !== 200 || check.body.results.length !== 500 || check.body.results_total !== s.bigRunSize) throw new Error(`seed check: ${check.status}`);
    // warm-up: JIT, connection pool, plan and page caches
    for (const ep of Object.values(ENDPOINTS)) await fire(t, s, ep, ep.creates ? 20 : 50, 2);
    for (const f of FIXED) {
      const trials: Trial[] = [];
      for (let i = 0; i < REPEATS; i++) trials.push(await fire(t, s, ENDPOINTS[f.ep], f.rate, FIXED_S));
      out.fixed[f.ep] = { endpoint: ENDPOINTS[f.ep].name, rate: f.rate, p50: median(trials.map((x) => x.p50)), p99: median(trials.map((x) => x.p99)), errors: trials.reduce((n, x) => n + x.errors + x.non2xx + x.timeouts, 0),
        api_cpu_ms: median(trials.map((x) => x.api_cpu_ms)), db_cpu_ms: median(trials.map((x) => x.db_cpu_ms)),
        p99_each: trials.map((x) => x.p99), trials };
      console.log(JSON.stringify({ mode: t.mode, fixed: f.ep, ...out.fixed[f.ep], trials: undefined }));
    }
    for (const [ep, ladder] of Object.entries(LADDERS)) {
      const maxima: Trial[] = [];
      const broke: Trial[] = [];
      const seen = new Map<number, Trial[]>();
      for (let i = 0; i < REPEATS; i++) {
        let best: Trial | null = null;
        for (const rate of ladder) {
          const x = await fire(t, s, ENDPOINTS[ep], rate, STEP_S);
          seen.set(rate, [...(seen.get(rate) ?? []), x]);
          if (!sustained(x)) { broke.push(x); break; }
          best = x;
        }
        maxima.push(best ?? { rate: 0, achieved: 0, p50: 0, p99: 0, errors: 0, non2xx: 0, timeouts: 0, total: 0, api_cpu_ms: 0, db_cpu_ms: 0 });
      }
      const m = median(maxima.map((x) => x.rate));
      out.max[ep] = { endpoint: ENDPOINTS[ep].name, rate: m, of_ladder: ladder, p99_at_max: median(maxima.filter((x) => x.rate === m).map((x) => x.p99)), per_repeat: maxima.map((x) => x.rate), first_unsustained: broke,
        // latency against rate: medians over the repeats that got that far
        curve: [...seen].map(([rate, xs]) => ({ rate, n: xs.length, p50: median(xs.map((x) => x.p50)), p99: median(xs.map((x) => x.p99)), api_cpu_ms: median(xs.map((x) => x.api_cpu_ms)), db_cpu_ms: median(xs.map((x) => x.db_cpu_ms)) })) };
      console.log(JSON.stringify({ mode: t.mode, max: ep, ...out.max[ep] }));
    }
  } finally {
    current = null;
    await t.stop();
  }
  return out;
}

const uptime = () => execSync('uptime').toString().trim();
const machine = { nproc: os.cpus().length, mem: execSync('free -h').toString().split('\n')[1].replace(/\s+/g, ' '), node: process.version, date: new Date().toISOString() };
console.log(JSON.stringify({ machine, uptime_before: uptime(), repeats: REPEATS }));
const results = [];
for (const mode of values.mode!.split(',')) {
  results.push(await measureMode(mode === 'postgres' ? startPostgresTarget : startEmbeddedTarget));
}
console.log(JSON.stringify({ uptime_after: uptime() }));
for (const r of results) {
  console.log(`\n${r.mode}`);
  for (const f of Object.values<any>(r.fixed)) console.log(`| ${f.endpoint} | ${f.rate} req/s | p50 ${f.p50} ms | p99 ${f.p99} ms (each: ${f.p99_each.join(', ')}) | errors ${f.errors} | CPU/request: API ${f.api_cpu_ms} ms, PostgreSQL ${f.db_cpu_ms} ms |`);
  for (const m of Object.values<any>(r.max)) {
    console.log(`| ${m.endpoint} | max sustained ${m.rate} req/s (repeats: ${m.per_repeat.join(', ')}) | p99 there ${m.p99_at_max} ms |`);
    console.log(`|   curve: ${m.curve.map((c: any) => `${c.rate}/s p50 ${c.p50} p99 ${c.p99}`).join('; ')} |`);
  }
}
