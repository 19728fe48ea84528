import { and, asc, eq, inArray, isNotNull, lt } from 'drizzle-orm';
import type { Database, Tx } from '../../../db/client.js';
import { runs, scenarioRuns } from '../../../db/schema.js';
import type { Deps } from '../../../deps.js';
import type { TranscriptEntry } from '../../../engine/types.js';
import { CLAIMABLE, HELD, NOT_STARTED, RUN_ACTIVE, RUN_FINAL, RUN_STARTS_FROM, sqlList } from './guards.js';

/**
 * How scenario runs come into a worker's hands and leave them without a result: claims, leases, hand-backs
 * and the marks of what is enqueued. Each statement is conditional on the states it may change (guards.ts),
 * so a worker that lost a race changes nothing.
 */
export interface Lease { owner: string; ms: number }
export type ScenarioRunRef = { id: string; runId: string; orgId: string };

export interface Claimed {
  sr: { id: string; runId: string; orgId: string; scenarioId: string; startedAt: Date | null };
  run: { id: string; agentId: string; maxTurns: number };
}

const NOT_STARTED_SQL = sqlList(NOT_STARTED);
const HELD_SQL = sqlList(HELD);
/** An attempt's start or end as an ISO 8601 UTC string, the way the API writes times. */
export const isoSql = (expr: string) => `to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
export const TAKEOVER_MESSAGE = 'internal: the worker holding this conversation stopped before it ended';
// A held scenario run claimed again was let go without a result (its worker died or shut down): that attempt
// did not count. An attempt already in the history (an automatic re-attempt) is not recorded twice.
const TAKEOVER_ENTRY = `jsonb_build_array(jsonb_build_object('attempt', s.attempts, 'fault', 'internal',
  'error_message', '${TAKEOVER_MESSAGE}', 'started_at', ${isoSql('coalesce(s.attempt_started_at, s.started_at)')}, 'ended_at', ${isoSql('$2::timestamptz')}))`;
const CLAIM_SQL = `with c as (
       update scenario_runs s
          set status = 'running', attempts = s.attempts + 1, started_at = coalesce(s.started_at, $2::timestamptz),
              attempt_started_at = $2::timestamptz,
              attempt_history = case when s.status in (${HELD_SQL}) and jsonb_array_length(s.attempt_history) < s.attempts
                then s.attempt_history || ${TAKEOVER_ENTRY} else s.attempt_history end,
              lease_owner = $3, lease_expires_at = $4::timestamptz, transcript = '[]'::jsonb, criteria_results = '[]'::jsonb
        where s.id = any($1::uuid[]) and s.status in (${sqlList(CLAIMABLE)})
          and (s.status in (${NOT_STARTED_SQL}) or (s.status in (${HELD_SQL}) and (s.lease_owner is null or s.lease_expires_at < $2::timestamptz)))
          and exists (select 1 from runs r where r.id = s.run_id and r.status in (${sqlList(RUN_ACTIVE)}))
        returning s.id, s.run_id, s.org_id, s.scenario_id, s.started_at),
     r as (update runs set status = 'running', updated_at = $2::timestamptz
            where id in (select run_id from c) and status in (${sqlList(RUN_STARTS_FROM)}) returning id)
     select c.*, runs.agent_id, runs.max_turns, (select count(*) from r) as moved
       from c join runs on runs.id = c.run_id`;

/**
 * Takes scenario runs for conversations — not started, or held by a worker whose lease ran out — and starts
 * their runs. One statement for a whole batch: a burst of jobs costs one round trip.
 */
export async function claimScenarioRuns(deps: Deps, ids: string[], lease: Lease): Promise<Map<string, Claimed>> {
  const now = deps.clock.now();
  const { rows } = await deps.db.executeSql(CLAIM_SQL, [ids, new Date(now).toISOString(), lease.owner, new Date(now + lease.ms).toISOString()]);
  const out = new Map<string, Claimed>();
  for (const row of rows) {
    out.set(row.id, {
      sr: { id: row.id, runId: row.run_id, orgId: row.org_id, scenarioId: row.scenario_id, startedAt: row.started_at ? new Date(row.started_at) : null },
      run: { id: row.run_id, agentId: row.agent_id, maxTurns: Number(row.max_turns) },
    });
  }
  return out;
}

/**
 * Extends the leases of the conversations this worker is holding right now: one statement per worker
 * per beat. Only those: a scenario run whose final write failed (database unreachable) is no longer
 * worked on here, so its lease must run out for the reaper to hand it to another attempt.
 */
export async function renewLeases(deps: Deps, lease: Lease, ids: string[]) {
  if (ids.length === 0) return;
  await deps.db.orm.update(scenarioRuns).set({ leaseExpiresAt: new Date(deps.clock.now() + lease.ms) })
    .where(and(inArray(scenarioRuns.id, ids), eq(scenarioRuns.leaseOwner, lease.owner), inArray(scenarioRuns.status, [...HELD])));
}

/** Locks held scenario runs whose worker stopped renewing its lease (killed, paused, cut off). */
export async function lockExpiredLeases(tx: Tx, now: Date, limit: number) {
  return tx.orm.select({ id: scenarioRuns.id }).from(scenarioRuns)
    .where(and(isNotNull(scenarioRuns.leaseOwner), lt(scenarioRuns.leaseExpiresAt, now), inArray(scenarioRuns.status, [...HELD])))
    .limit(limit).for('update', { skipLocked: true });
}

/** Releases held scenario runs (lease_owner null), so they are reaped once and a new job can claim them. */
export async function releaseLeases(tx: Tx, ids: string[], now: Date): Promise<ScenarioRunRef[]> {
  return tx.orm.update(scenarioRuns).set({ leaseOwner: null, enqueuedAt: now })
    .where(and(inArray(scenarioRuns.id, ids), inArray(scenarioRuns.status, [...HELD])))
    .returning({ id: scenarioRuns.id, runId: scenarioRuns.runId, orgId: scenarioRuns.orgId });
}

/** Expired leases: released and enqueued again, in one transaction. */
export async function reapExpiredLeases(deps: Deps, enqueue: (tx: Tx, sr: ScenarioRunRef) => Promise<void>, limit = 100) {
  const now = new Date(deps.clock.now());
  return deps.db.transaction(async (tx) => {
    const expired = await lockExpiredLeases(tx, now, limit);
    if (expired.length === 0) return 0;
    const released = await releaseLeases(tx, expired.map((e) => e.id), now);
    for (const sr of released) await enqueue(tx, sr);
    return released.length;
  });
}

/** Lets go of a scenario run this worker holds (its own shutdown interrupted it); true if it still held it. */
export async function releaseHeld(tx: Tx, id: string, owner: string, now: Date): Promise<boolean> {
  const released = await tx.orm.update(scenarioRuns).set({ leaseOwner: null, enqueuedAt: now })
    .where(and(eq(scenarioRuns.id, id), eq(scenarioRuns.leaseOwner, owner), inArray(scenarioRuns.status, [...HELD])))
    .returning({ id: scenarioRuns.id });
  return released.length > 0;
}

/** Locks the next not-yet-enqueued scenario runs of a run, in their order. */
export async function lockNextToEnqueue(tx: Tx, runId: string, n: number) {
  return tx.orm.select({ id: scenarioRuns.id }).from(scenarioRuns)
    .where(and(eq(scenarioRuns.runId, runId), inArray(scenarioRuns.status, [...NOT_STARTED]), eq(scenarioRuns.enqueued, false)))
    .orderBy(asc(scenarioRuns.position), asc(scenarioRuns.repetition)).limit(n).for('update', { skipLocked: true });
}

export async function markEnqueued(tx: Tx, ids: string[], now: Date): Promise<ScenarioRunRef[]> {
  return tx.orm.update(scenarioRuns).set({ enqueued: true, enqueuedAt: now })
    .where(and(inArray(scenarioRuns.id, ids), inArray(scenarioRuns.status, [...NOT_STARTED])))
    .returning({ id: scenarioRuns.id, runId: scenarioRuns.runId, orgId: scenarioRuns.orgId });
}

/** Marks the next not-yet-enqueued pending scenario runs of a run as enqueued and returns them. */
export async function takeNextToEnqueue(tx: Tx, runId: string, n: number, now: Date): Promise<ScenarioRunRef[]> {
  if (n <= 0) return [];
  const next = await lockNextToEnqueue(tx, runId, n);
  if (next.length === 0) return [];
  return markEnqueued(tx, next.map((x) => x.id), now);
}

const APPEND_SQL = `with l as (select id from scenario_runs where id in (select (x->>'id')::uuid from jsonb_array_elements($1::jsonb) x) order by id for update)
       update scenario_runs s set transcript = s.transcript || v.entries
         from jsonb_to_recordset($1::jsonb) as v(id uuid, owner text, entries jsonb)
        where s.id = v.id and s.id in (select id from l) and s.lease_owner = v.owner and s.status in (${HELD_SQL})`;

/** Appends transcript entries to conversations their owners still hold; rows locked in id order (no deadlock cycles). */
export async function appendTranscripts(db: Database, batch: Array<{ id: string; owner: string; entries: TranscriptEntry[] }>) {
  await db.executeSql(APPEND_SQL, [JSON.stringify(batch)]);
}

/** Of these runs, the ones that are over (canceled or failed elsewhere, say). */
export async function finalRunIds(deps: Deps, runIds: string[]): Promise<string[]> {
  if (runIds.length === 0) return [];
  const rows = await deps.db.orm.select({ id: runs.id }).from(runs)
    .where(and(inArray(runs.id, runIds), inArray(runs.status, [...RUN_FINAL])));
  return rows.map((r) => r.id);
}
