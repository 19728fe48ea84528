import type { Tx } from '../../../db/client.js';
import type { Deps } from '../../../deps.js';

/**
 * A claimable scenario run (pending and enqueued, or handed back / reaped with no lease) is normally
 * claimed within moments of its job being enqueued. One still unclaimed this long after has lost its
 * job: the worker that fetched it died before claiming, the job expired, or pg-boss spent its retries.
 */
export const LOST_SCENARIO_JOB_AFTER_MS = 15_000;

export interface UnclaimedScenarioRun { id: string; runId: string; orgId: string }

/**
 * Re-enqueues scenario runs whose job was lost, in one transaction that skips rows another worker is
 * sweeping or claiming. A duplicate job is harmless: the claim is conditional, so only one of them
 * starts the conversation. `enqueued_at` moves forward, so each lost job is replaced once per period.
 */
export async function reenqueueUnclaimedScenarioRuns(
  deps: Deps, enqueue: (tx: Tx, sr: UnclaimedScenarioRun) => Promise<void>, limit = 100,
): Promise<number> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const { rows } = await tx.executeSql(
      `select s.id, s.run_id, s.org_id from scenario_runs s join runs r on r.id = s.run_id
        where s.lease_owner is null and s.status in ('pending', 'running', 'grading')
          and (s.status <> 'pending' or s.enqueued)
          and (s.enqueued_at is null or s.enqueued_at < $1::timestamptz)
          and r.status in ('pending', 'running', 'grading')
        order by s.enqueued_at nulls first
        limit $2
        for update of s skip locked`,
      [new Date(now - LOST_SCENARIO_JOB_AFTER_MS).toISOString(), limit],
    );
    if (rows.length === 0) return 0;
    await markEnqueued(tx, rows.map((r) => r.id as string), now);
    for (const r of rows) await enqueue(tx, { id: r.id, runId: r.run_id, orgId: r.org_id });
    return rows.length;
  });
}

async function markEnqueued(tx: Tx, ids: string[], now: number) {
  await tx.executeSql('update scenario_runs set enqueued_at = $2::timestamptz where id = any($1::uuid[])', [ids, new Date(now).toISOString()]);
}
