import { uuidv7 } from 'uuidv7';
import type { Deps } from '../../deps.js';
import { JOBS } from '../../jobs/catalog.js';
import type { JobQueue } from '../../jobs/queue.js';
import { listenForWork } from '../../jobs/wakeup.js';
import { Dispatcher } from '../../jobs/worker.js';
import { Admission } from './admission.js';
import { createConductor } from './conduct.js';
import { sendScenarioRun } from './enqueue.js';
import type { LocalRuns } from './local-runs.js';
import { reenqueueUnclaimedScenarioRuns } from './run-store/lost-jobs.js';
import { finalRunIds, reapExpiredLeases, renewLeases, type Lease } from './run-store/claims.js';

export interface RunWorkerOptions {
  leaseMs: number;
  heartbeatMs: number;
  reapIntervalMs: number;
  cancelPollMs: number;
  pollIntervalMs: number;
}

export const DEFAULT_RUN_WORKER_OPTIONS: RunWorkerOptions = { leaseMs: 30_000, heartbeatMs: 10_000, reapIntervalMs: 5_000, cancelPollMs: 1_000, pollIntervalMs: 250 };

export interface RunWorker {
  start(): void;
  /** Ends the conversations in hand (they go back to the queue) and stops taking jobs. */
  stop(): Promise<void>;
  /** Conversations this process is holding right now. */
  inFlight(): number;
}

type Log = { error(obj: unknown, msg: string): void };

/**
 * The scenario-run worker: takes scenario-run jobs and conducts them (conduct.ts). It holds a renewable lease on
 * each conversation, so a killed worker's conversations are taken over by another once the lease runs out; it
 * reaps such leases, and stops its own conversations of runs that ended elsewhere.
 */
export function createRunWorker(deps: Deps, queue: JobQueue, local: LocalRuns, log: Log, opts: Partial<RunWorkerOptions> = {}): RunWorker {
  // the lease comes from configuration; renewal and reaping run well inside it
  const leaseMs = deps.config.workerLeaseMs;
  const o = { ...DEFAULT_RUN_WORKER_OPTIONS, leaseMs, heartbeatMs: Math.floor(leaseMs / 3), reapIntervalMs: Math.min(5000, Math.floor(leaseMs / 2)), ...opts };
  const lease: Lease = { owner: `${process.pid}-${uuidv7()}`, ms: o.leaseMs };
  const timers: NodeJS.Timeout[] = [];
  const stopHooks: Array<() => unknown> = [];
  let dispatcher: Dispatcher<typeof JOBS.scenarioRun.payload> | null = null;
  let shuttingDown = false;
  // fewer conversations start while replies cannot be timed accurately (admission.ts)
  const admission = new Admission({ max: deps.config.workerConcurrency });
  let raised: NodeJS.Timeout | null = null;
  admission.onRaise = () => { raised ??= setTimeout(() => { raised = null; dispatcher?.wake(); }, 50); };
  const conductor = createConductor(deps, queue, local, lease, log, () => shuttingDown, admission);

  const every = (ms: number, fn: () => Promise<unknown>, what: string) => {
    let busy = false;
    const t = setInterval(() => {
      if (busy) return;
      busy = true;
      fn().catch((err) => log.error({ err }, what)).finally(() => { busy = false; });
    }, ms);
    t.unref();
    timers.push(t);
  };

  return {
    start() {
      dispatcher = new Dispatcher({
        queue, job: JOBS.scenarioRun, concurrency: () => admission.limit(), pace: admission, pollIntervalMs: o.pollIntervalMs,
        handle: conductor.handle, onError: (err, context) => log.error({ err, context }, 'scenario job failed'),
      });
      dispatcher.start();
      stopHooks.push(local.onWake(() => dispatcher?.wake()));
      deps.metrics?.setInFlight(() => dispatcher?.activeCount ?? 0);
      if (deps.config.databaseUrl) {
        stopHooks.push(listenForWork(deps.config.databaseUrl, () => dispatcher?.wake(), (err) => log.error({ err }, 'work listener')));
      }
      every(o.heartbeatMs, () => renewLeases(deps, lease, [...conductor.held]), 'lease renewal failed');
      every(o.reapIntervalMs, async () => {
        if ((await reapExpiredLeases(deps, (tx, sr) => sendScenarioRun(deps, queue, tx, sr))) > 0) dispatcher?.wake();
      }, 'lease reaper failed');
      // the rows are the truth: a scenario run whose job was lost before anyone claimed it is enqueued again
      every(o.reapIntervalMs, async () => {
        if ((await reenqueueUnclaimedScenarioRuns(deps, (tx, sr) => sendScenarioRun(deps, queue, tx, sr))) > 0) dispatcher?.wake();
      }, 'lost-job sweeper failed');
      // another process may end a run (cancel, fail fast): stop our conversations of it promptly
      every(o.cancelPollMs, async () => {
        for (const id of await finalRunIds(deps, local.runIds())) local.abortRun(id, 'run canceled');
      }, 'cancel poll failed');
    },
    async stop() {
      for (const t of timers) clearInterval(t);
      timers.length = 0;
      if (raised) clearTimeout(raised);
      shuttingDown = true;
      // conversations in hand end now and are handed back to the queue
      for (const runId of local.runIds()) local.abortRun(runId, 'worker shutting down');
      await dispatcher?.stop();
      await conductor.close();
      for (const stop of stopHooks) await stop();
    },
    inFlight: () => dispatcher?.activeCount ?? 0,
  };
}
