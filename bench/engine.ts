/**
 * Orchestration efficiency (docs: ../shared/design/performance.md): N conversations of exactly 4 tester
 * turns at concurrency N; agent 300 ms, tester 200 ms, one judge call 200 ms per conversation.
 * Ideal = 4 × (300 + 200) + 200 = 2.2 s. Efficiency = ideal / (accepted → final state).
 *
 *   npx tsx bench/engine.ts --n 10,100,1000 --mode embedded
 *   npx tsx bench/engine.ts --n 1000 --mode scaled --workers 1,2,4
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/server.js';
import { api, cliJson, createPgDatabase, ensureBuilt, startCli, type Proc } from '../test/cluster/processes.js';

const { values } = parseArgs({ options: { n: { type: 'string', default: '10,100' }, mode: { type: 'string', default: 'embedded' }, workers: { type: 'string', default: '1' } } });
const IDEAL_S = 2.2;
const TURNS = 4;

async function startFakes() {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'fakes.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve) => child.stdout!.once('data', (d) => resolve(d.toString())));
  return { ...JSON.parse(line), stop: () => child.kill('SIGTERM') };
}

function procStats(pid: number) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const tick = 100; // USER_HZ
  const cpuS = (Number(stat[11]) + Number(stat[12])) / tick;
  const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpuS, peakRssMb: hwm ? Number(hwm[1]) / 1024 : 0 };
}

async function prepare(call: ReturnType<typeof api>, fakes: any, n: number) {
  const a = await call('POST', '/agents', { provider: 'provider_4', name: `bench-${n}-${Date.now()}`, config: { base_url: fakes.agentUrl, model: 'desk' } });
  const s = await call('POST', '/scenarios', {
    name: `bench-${n}-${Date.now()}`, persona: 'A patient', goal: 'Book an appointment', script: [],
    criteria: [{ criterion: 'Confirms the booking', check: { type: 'contains', value: 'booked' } }, { criterion: 'Is polite', check: null }],
  });
  const suite = await call('POST', '/test-suites', { name: `bench-${n}-${Date.now()}`, scenario_ids: Array.from({ length: n }, () => s.body.id) });
  if (suite.status !== 201) {
    // a suite lists each template once: make N templates
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await call('POST', '/scenarios', {
      name: `bench-${n}-${i}-${Date.now()}`, persona: 'A patient', goal: 'Book an appointment', script: [],
      criteria: [{ criterion: 'Confirms the booking', check: { type: 'contains', value: 'booked' } }, { criterion: 'Is polite', check: null }],
    })).body.id);
    return { agentId: a.body.id, suiteId: (await call('POST', '/test-suites', { name: `bench-suite-${n}-${Date.now()}`, scenario_ids: ids })).body.id };
  }
  return { agentId: a.body.id, suiteId: suite.body.id };
}

/** Resolves when the run is final, without loading the service under test with status polls. */
type WaitFinal = (runId: string) => Promise<void>;

async function measure(call: ReturnType<typeof api>, n: number, fakes: any, cpu: () => number, rss: () => number, waitFinal: WaitFinal) {
  const { agentId, suiteId } = await prepare(call, fakes, n);
  const cpu0 = cpu();
  const t0 = performance.now();
  const run = await call('POST', '/runs', { agent_id: agentId, test_suite_id: suiteId, test_mode: 'full', max_turns: TURNS });
  if (run.status !== 201) throw new Error(JSON.stringify(run.body));
  await waitFinal(run.body.id);
  const wall = (performance.now() - t0) / 1000;
  const cpuS = cpu() - cpu0;
  const r = (await call('GET', `/runs/${run.body.id}`)).body;
  const requests = n * (TURNS * 2 + 1);
  return { n, status: r.status, passed: r.passed_count, wall_s: +wall.toFixed(3), efficiency: +(IDEAL_S / wall).toFixed(3), cpu_s: +cpuS.toFixed(2), cpu_ms_per_request: +((cpuS * 1000) / requests).toFixed(3), peak_rss_mb: Math.round(rss()) };
}

const ns = values.n!.split(',').map(Number);
const fakes = await startFakes();
const llmEnv = { REHEARSAL_LLM_BASE_URL: fakes.llmUrl, REHEARSAL_TESTER_MODEL: fakes.testerModel, REHEARSAL_JUDGE_MODEL: fakes.judgeModel };
const results: any[] = [];
try {
  if (values.mode === 'embedded') {
    for (const n of ns) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-bench-'));
      const config = loadConfig({ ...llmEnv, REHEARSAL_DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'warn', REHEARSAL_SCENARIO_CONCURRENCY: String(n), REHEARSAL_WORKER_CONCURRENCY: String(n), REHEARSAL_RATE_LIMIT_PER_MINUTE: '1000000' });
      let key = '';
      const svc = await startService(config, { api: true, worker: true, engine: { pollIntervalMs: 100 }, print: (l) => { const m = /^\s+(sk_live_\w+)/.exec(l); if (m) key = m[1]; } });
      const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
      let peak = 0;
      const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss / 1048576); }, 50);
      const finals = new Map<string, () => void>();
      const done = new Set<string>();
      const inner = svc.deps.hooks.onRunFinalized;
      svc.deps.hooks.onRunFinalized = async (tx, id) => {
        await inner?.(tx, id);
        // the final state is committed right after this hook returns
        setImmediate(() => { done.add(id); finals.get(id)?.(); });
      };
      const waitFinal: WaitFinal = (id) => new Promise((resolve) => { if (done.has(id)) resolve(); else finals.set(id, resolve); });
      results.push({ mode: 'embedded', workers: 1, ...(await measure(api(svc.url!, key), n, fakes, cpu, () => peak, waitFinal)) });
      clearInterval(sampler);
      await svc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
      console.log(JSON.stringify(results.at(-1)));
    }
  } else {
    ensureBuilt();
    for (const workers of values.workers!.split(',').map(Number)) {
      for (const n of ns) {
        const db = await createPgDatabase('rehearsal_bench');
        const env = { ...llmEnv, DATABASE_URL: db.url, REHEARSAL_SECRET_KEY: 'bench-secret-0123456789abcdefghijklmn', PORT: '0', REHEARSAL_SCENARIO_CONCURRENCY: String(n), REHEARSAL_WORKER_CONCURRENCY: String(Math.ceil(n / workers)), REHEARSAL_RATE_LIMIT_PER_MINUTE: '1000000' };
        const procs: Proc[] = [startCli(['serve', '--no-worker'], env)];
        const [, base] = await procs[0].waitFor(/listening on (http:\/\/[^/\s]+)\/api\/v1/);
        for (let i = 0; i < workers; i++) procs.push(startCli(['worker'], env));
        await Promise.all(procs.slice(1).map((p) => p.waitFor(/Worker: running/)));
        const { key } = await cliJson(['keys', 'create', '--org', 'bench', '--json'], env);
        const pids = procs.map((p) => p.child.pid!);
        const cpu = () => pids.reduce((s, pid) => s + procStats(pid).cpuS, 0);
        const rss = () => pids.reduce((s, pid) => s + procStats(pid).peakRssMb, 0);
        const watcher = new pg.Client({ connectionString: db.url });
        await watcher.connect();
        const waitFinal: WaitFinal = async (id) => {
          for (;;) {
            const { rows } = await watcher.query('select status from runs where id = $1', [id]);
            if (['completed', 'failed', 'canceled'].includes(rows[0]?.status)) return;
            await new Promise((res) => setTimeout(res, 20));
          }
        };
        results.push({ mode: 'scaled', workers, ...(await measure(api(base, key), n, fakes, cpu, rss, waitFinal)) });
        if (process.env.BENCH_TIMELINE) {
          const { rows } = await watcher.query(`select extract(epoch from min(s.started_at) - r.created_at) first_start, extract(epoch from max(s.started_at) - r.created_at) last_start,
              avg(s.duration_ms)::int avg_ms, max(s.duration_ms) max_ms, max(s.attempts) max_attempts, count(*) filter (where s.attempts > 1) retried, extract(epoch from max(s.completed_at) - r.created_at) last_done, extract(epoch from r.completed_at - r.created_at) run_done
              from runs r join scenario_runs s on s.run_id = r.id group by r.id`);
          console.log('timeline', rows[0]);
        }
        await watcher.end();
        if (process.env.BENCH_LOGS) procs.forEach((p, i) => fs.writeFileSync(`${process.env.BENCH_LOGS}-${i}.log`, p.output()));
        for (const p of procs) await p.kill('SIGTERM');
        await db.drop();
        console.log(JSON.stringify(results.at(-1)));
      }
    }
  }
} finally {
  fakes.stop();
}
console.table(results);
