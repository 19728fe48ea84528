import PgBoss from 'pg-boss';
import { Value } from '@sinclair/typebox/value';
import type { Static, TSchema } from '@sinclair/typebox';
import type { Database, SqlExecutor } from '../db/client.js';
import { JOBS, type JobDef } from './catalog.js';
import '../lib/typebox-formats.js';

export interface FetchedJob<T> { id: string; data: T }

/**
 * pg-boss on our own connection (PGlite or pg pool), so jobs can be enqueued inside the transaction
 * that writes the rows they belong to.
 */
export interface JobQueue {
  start(): Promise<void>;
  /** `startAfterSeconds` (fractions allowed) delays the job, measured on the database clock. */
  send<S extends TSchema>(exec: SqlExecutor, job: JobDef<S>, payload: Static<S>, opts?: { startAfterSeconds?: number }): Promise<void>;
  /** Many jobs of one kind in one statement (a run's first window of scenario runs: 1,000 inserts become one). */
  sendMany<S extends TSchema>(exec: SqlExecutor, job: JobDef<S>, payloads: Static<S>[]): Promise<void>;
  fetch<S extends TSchema>(job: JobDef<S>, max: number): Promise<Array<FetchedJob<Static<S>> | { id: string; invalid: string }>>;
  complete(job: JobDef, id: string | string[]): Promise<void>;
  fail(job: JobDef, id: string, reason: string): Promise<void>;
  stop(): Promise<void>;
}

export function createJobQueue(db: Database, opts: { supervise: boolean; onError: (err: Error) => void }): JobQueue {
  const boss = new PgBoss({
    db: { executeSql: (text: string, values?: unknown[]) => db.executeSql(text, values) },
    // pg-boss's scheduler (cron schedules, one job per minute across all processes) runs in worker
    // processes; checking every 10 s and moving due jobs every 2 s keeps a firing within ~15 s of its minute
    schedule: opts.supervise,
    cronMonitorIntervalSeconds: 10,
    cronWorkerIntervalSeconds: 2,
    // maintenance (expiring held jobs, archiving) runs in worker processes only, once per interval across
    // all of them; it bounds how late pg-boss notices a job held by a dead worker (default 120 s). Our
    // sweepers notice sooner; this is the second line.
    supervise: opts.supervise,
    maintenanceIntervalSeconds: 5,
  } as any);
  boss.on('error', opts.onError);
  let started = false;
  return {
    async start() {
      // pg-boss's installation (CREATE SCHEMA) and create_queue fail with duplicate-key errors or
      // deadlocks when several processes start at once on a fresh database: they take turns.
      await db.exclusive(async () => {
        await boss.start();
        started = true;
        for (const job of Object.values(JOBS)) {
          if (!(await boss.getQueue(job.name))) await boss.createQueue(job.name, { name: job.name, policy: 'standard' } as any);
        }
        // every minute, in UTC; each schedule's own cron and timezone are evaluated by the tick's handler
        await boss.schedule(JOBS.scheduleTick.name, '* * * * *', {}, { tz: 'UTC', retryLimit: JOBS.scheduleTick.retryLimit, expireInSeconds: JOBS.scheduleTick.expireInSeconds } as any);
      });
    },
    async send(exec, job, payload, opts = {}) {
      await boss.send(job.name, payload as object, {
        ...(opts.startAfterSeconds && opts.startAfterSeconds > 0 ? { startAfter: opts.startAfterSeconds } : {}),
        retryLimit: job.retryLimit, retryDelay: job.retryDelaySeconds, expireInSeconds: job.expireInSeconds,
        db: { executeSql: (text: string, values?: unknown[]) => exec.executeSql(text, values) },
      } as any);
    },
    async sendMany(exec, job, payloads) {
      if (payloads.length === 0) return;
      await boss.insert(
        payloads.map((data) => ({ name: job.name, data: data as object, retryLimit: job.retryLimit, retryDelay: job.retryDelaySeconds, expireInSeconds: job.expireInSeconds })),
        { db: { executeSql: (text: string, values?: unknown[]) => exec.executeSql(text, values) } } as any,
      );
    },
    async fetch(job, max) {
      const jobs = (await boss.fetch(job.name, { batchSize: max })) ?? [];
      return jobs.map((j: any) => (Value.Check(job.payload, j.data)
        ? { id: j.id, data: j.data }
        : { id: j.id, invalid: [...Value.Errors(job.payload, j.data)].map((e) => `${e.path} ${e.message}`).join('; ') }));
    },
    async complete(job, id) { await boss.complete(job.name, Array.isArray(id) ? id : [id]); },
    async fail(job, id, reason) { await boss.fail(job.name, id, { reason }); },
    async stop() {
      if (started) await boss.stop({ graceful: false, wait: true, close: false } as any);
    },
  };
}
