import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import pg from 'pg';
import { cliJson, createPgDatabase, ensureBuilt, startCli } from '../test/cluster/processes.js';
import type { Sql } from './api-seed.js';

/**
 * The API under load, in its own process so the load generator's CPU is not counted as its own:
 * - postgres: the built CLI's `serve --no-worker` on a fresh PostgreSQL database;
 * - embedded: bench/api-embedded.ts, the same service on PGlite with the worker off, so both modes
 *   measure the API alone (the worker's cost is what bench:engine measures).
 */
export interface Target {
  mode: 'embedded' | 'postgres';
  base: string;
  key: string;
  pid: number;
  sql: Sql;
  /** CPU milliseconds used so far by the API process and by the database server's backends for it. */
  cpu(): Promise<{ api: number; db: number }>;
  stop(): Promise<void>;
}

/** user + system time of a process in ms (USER_HZ = 100); 0 once it is gone. */
export function cpuMs(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

/** What the API needs to stay out of the way of a load test: no per-key throttle, no run limit. */
export const BENCH_ENV = {
  REHEARSAL_RATE_LIMIT_PER_MINUTE: '1000000', REHEARSAL_MAX_CONCURRENT_RUNS: '10000', LOG_LEVEL: 'warn', PORT: '0',
};

export async function startPostgresTarget(): Promise<Target> {
  ensureBuilt();
  const db = await createPgDatabase('rehearsal_bench_api');
  const env = { ...BENCH_ENV, DATABASE_URL: db.url, REHEARSAL_SECRET_KEY: 'bench-api-secret-0123456789abcdefghijklmn' };
  const proc = startCli(['serve', '--no-worker'], env);
  const [, base] = await proc.waitFor(/listening on (http:\/\/[^/\s]+)\/api\/v1/, 60_000);
  const { key } = await cliJson(['keys', 'create', '--org', 'bench', '--json'], env);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  // The API's backends serve its queries: their CPU is the database's cost. The pool closes idle
  // connections and opens new ones, so each backend's CPU is sampled while it lives and kept after.
  const backendCpu = new Map<number, number>();
  const sampleBackends = async () => {
    const { rows } = await client.query('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    for (const r of rows) backendCpu.set(r.pid, Math.max(backendCpu.get(r.pid) ?? 0, cpuMs(r.pid)));
  };
  const sampler = setInterval(() => { sampleBackends().catch(() => {}); }, 500);
  return {
    mode: 'postgres', base, key, pid: proc.child.pid!,
    sql: (text, params) => client.query(text, params as unknown[]),
    cpu: async () => {
      await sampleBackends();
      return { api: cpuMs(proc.child.pid!), db: [...backendCpu.values()].reduce((a, b) => a + b, 0) };
    },
    stop: async () => {
      clearInterval(sampler);
      await proc.kill('SIGTERM');
      await client.end();
      await db.drop();
    },
  };
}

/** The embedded service answers SQL from the benchmark over stdin/stdout (its data dir is locked to it). */
export async function startEmbeddedTarget(): Promise<Target> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'api-embedded.ts')], {
    env: { ...process.env, ...BENCH_ENV }, stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = readline.createInterface({ input: child.stdout! });
  const waiting = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  let ready: (v: { base: string; key: string }) => void;
  const started = new Promise<{ base: string; key: string }>((r) => { ready = r; });
  lines.on('line', (line) => {
    const msg = JSON.parse(line);
    if (msg.ready) return ready(msg);
    const w = waiting.get(msg.id);
    waiting.delete(msg.id);
    if (msg.error) w?.reject(new Error(msg.error));
    else w?.resolve({ rows: msg.rows });
  });
  let seq = 0;
  const { base, key } = await started;
  return {
    mode: 'embedded', base, key, pid: child.pid!,
    sql: (text, params) => new Promise((resolve, reject) => {
      const id = ++seq;
      waiting.set(id, { resolve, reject });
      child.stdin!.write(JSON.stringify({ id, text, params: params ?? [] }) + '\n');
    }),
    // PGlite runs inside the API process: its CPU is the API's
    cpu: async () => ({ api: cpuMs(child.pid!), db: 0 }),
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A small JSON caller for setting up through the API. */
export function caller(t: Pick<Target, 'base' | 'key'>) {
  return async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${t.base}/api/v1${url}`, {
      method, headers: { authorization: `Bearer ${t.key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
}
