import { and, eq, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { Tx } from '../../db/client.js';
import { scheduleFirings, schedules } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { AppError } from '../../http/errors.js';
import { createRunInTx } from '../runs/runs.service.js';
import { lastFiring } from './cron.js';

// The handler of pg-boss's minute tick: every active schedule whose cron names a minute since its last change
// (and within the last few minutes, so a worker back from downtime does not replay the night) fires once for
// that minute. The firing row's unique key (schedule, minute) is the claim, and the claim, the run and the
// schedule's last_run_id commit in one transaction: however many workers handle ticks, one of them fires the
// minute, and a firing that fails leaves no claim behind (the retried tick fires it).

/** How far back a missed minute is still fired (a tick retried, or every worker down for a moment). */
const CATCH_UP_MS = 5 * 60_000;

type ScheduleRow = typeof schedules.$inferSelect;

/** A minute the schedule may fire for: named by its cron, not before its last change, not too long ago. */
function dueMinute(s: ScheduleRow, now: Date): Date | null {
  const minute = lastFiring(s.cron, s.timezone, now);
  if (minute.getTime() < s.updatedAt.getTime() || now.getTime() - minute.getTime() > CATCH_UP_MS) return null;
  return minute;
}

export async function fireDueSchedules(deps: Deps): Promise<number> {
  const now = new Date(deps.clock.now());
  const active = await deps.db.orm.select().from(schedules).where(eq(schedules.isActive, true));
  let fired = 0;
  let failure: unknown = null;
  for (const candidate of active) {
    if (!dueMinute(candidate, now)) continue;
    let runId: string | null | undefined;
    try {
      runId = await deps.db.transaction((tx) => fireInTx(deps, tx, candidate.id, now));
    } catch (err) {
      // one schedule's failure does not hold up the others; the tick fails afterwards and is retried for it
      failure ??= err;
      continue;
    }
    if (runId === undefined) continue;
    fired++;
    if (runId) deps.hooks.afterRunCreated(runId);
  }
  if (failure) throw failure;
  return fired;
}

/**
 * Claims the due minute and creates its run, or records it as skipped. undefined: nothing fired (not due any
 * more, or another worker claimed it); null: skipped; else the new run's id.
 */
async function fireInTx(deps: Deps, tx: Tx, scheduleId: string, now: Date): Promise<string | null | undefined> {
  // re-read under a row lock: a PATCH that deactivates or changes the schedule commits before this firing or
  // after it, never beside it, so a deactivated schedule fires for no later minute
  const [s] = await tx.orm.select().from(schedules).where(eq(schedules.id, scheduleId)).for('update');
  if (!s || !s.isActive) return undefined;
  const minute = dueMinute(s, now);
  if (!minute) return undefined;
  const firingId = uuidv7();
  const claimed = await tx.orm.insert(scheduleFirings).values({
    id: firingId, scheduleId: s.id, orgId: s.orgId, scheduledFor: minute, firedAt: now, status: 'created', runId: null, reason: null,
  }).onConflictDoNothing().returning({ id: scheduleFirings.id });
  if (claimed.length === 0) return undefined;
  let runId: string;
  try {
    // exactly what POST /runs would be sent with the schedule's fields (absent ones take POST /runs's defaults)
    const run = await createRunInTx(deps, tx, { orgId: s.orgId }, {
      agent_id: s.agentId, test_suite_id: s.testSuiteId ?? undefined, test_mode: s.testMode,
      max_scenarios: s.maxScenarios ?? undefined, max_turns: s.maxTurns ?? undefined, repeats: s.repeats ?? undefined, baseline: s.baseline,
    });
    runId = run.id;
  } catch (err) {
    // a refusal is decided before the run writes anything, so the transaction can record the skip;
    // anything else rolls the claim back with it and the tick is retried
    if (!(err instanceof AppError)) throw err;
    await tx.orm.update(scheduleFirings).set({ status: 'skipped', reason: skipReason(deps, err) }).where(eq(scheduleFirings.id, firingId));
    return null;
  }
  await tx.orm.update(scheduleFirings).set({ runId }).where(eq(scheduleFirings.id, firingId));
  // the newest firing's run wins: a late handler of an older minute does not overwrite a newer run
  await tx.orm.update(schedules).set({ lastRunId: runId })
    .where(and(eq(schedules.id, s.id), sql`coalesce((select f.scheduled_for from schedule_firings f where f.run_id = ${schedules.lastRunId}), '-infinity') <= ${minute.toISOString()}::timestamptz`));
  return runId;
}

function skipReason(deps: Deps, err: AppError): string {
  if (err.code === 'RATE_LIMITED') {
    return `Skipped: the organization was at its limit of ${deps.config.maxConcurrentRuns} concurrent runs (REHEARSAL_MAX_CONCURRENT_RUNS) when this minute fired.`;
  }
  return `Skipped: ${err.message}`;
}
