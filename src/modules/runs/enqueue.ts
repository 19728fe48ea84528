import type { Tx } from '../../db/client.js';
import type { Deps } from '../../deps.js';
import { JOBS } from '../../jobs/catalog.js';
import type { JobQueue } from '../../jobs/queue.js';
import { notifyWork } from '../../jobs/wakeup.js';
import { takeNextToEnqueue, type ScenarioRunRef } from './run-store/claims.js';

/** One scenario-run job, in the caller's transaction; on PostgreSQL idle workers are told at commit. */
export async function sendScenarioRun(deps: Pick<Deps, 'db'>, queue: JobQueue, tx: Tx, sr: ScenarioRunRef) {
  await queue.send(tx, JOBS.scenarioRun, { scenario_run_id: sr.id, run_id: sr.runId, org_id: sr.orgId });
  if (deps.db.kind === 'postgres') await notifyWork(tx);
}

/**
 * Enqueues up to n more scenario runs of a run. A run keeps at most REHEARSAL_SCENARIO_CONCURRENCY of them
 * enqueued: its creation enqueues that many, and each finished one enqueues the next in its own transaction.
 */
export async function enqueueNext(deps: Pick<Deps, 'db' | 'clock'>, queue: JobQueue, tx: Tx, runId: string, n: number) {
  const next = await takeNextToEnqueue(tx, runId, n, new Date(deps.clock.now()));
  if (next.length === 0) return;
  // one statement for the whole window, and one wake-up
  await queue.sendMany(tx, JOBS.scenarioRun, next.map((sr) => ({ scenario_run_id: sr.id, run_id: sr.runId, org_id: sr.orgId })));
  if (deps.db.kind === 'postgres') await notifyWork(tx);
}
