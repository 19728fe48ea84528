import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(ROOT, 'dist/cli/index.js');
export const PG_URL = process.env.TEST_PG_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Multi-process tests run the built CLI, as a deployment would; build it once if it is missing. */
export function ensureBuilt() {
  if (fs.existsSync(CLI)) return;
  const r = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('build failed');
}

export async function createPgDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(PG_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface Proc {
  child: ChildProcess;
  output(): string;
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function startCli(args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters: Array<() => void> = [];
  const onData = (d: Buffer) => { out += d.toString(); for (const w of [...waiters]) w(); };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    child,
    output: () => out,
    waitFor: (re, timeoutMs = 20_000) => new Promise((resolve, reject) => {
      const check = () => {
        const m = out.match(re);
        if (m) { waiters.splice(waiters.indexOf(check), 1); clearTimeout(timer); resolve(m); }
      };
      const timer = setTimeout(() => { waiters.splice(waiters.indexOf(check), 1); reject(new Error(`timed out waiting for ${re}; output:\n${out}`)); }, timeoutMs);
      waiters.push(check);
      check();
      child.once('exit', () => { if (waiters.includes(check)) { waiters.splice(waiters.indexOf(check), 1); clearTimeout(timer); reject(new Error(`process exited before ${re}; output:\n${out}`)); } });
    }),
    kill: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

export async function cliJson(args: string[], env: Record<string, string>): Promise<any> {
  const p = startCli(args, env);
  await new Promise<void>((r) => p.child.once('exit', () => r()));
  if (p.child.exitCode !== 0) throw new Error(`rehearsal ${args.join(' ')} failed:\n${p.output()}`);
  return JSON.parse(p.output().trim().split('\n').pop()!);
}

/** A tiny API caller for tests that talk to a real listening server. */
export function api(base: string, key: string) {
  return async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${base}/api/v1${url}`, {
      method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
}
