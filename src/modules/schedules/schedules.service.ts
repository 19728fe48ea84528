import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { agents, scheduleFirings, schedules, testSuites } from '../../db/schema.js';
import type { Ctx, Deps } from '../../deps.js';
import { AppError, invalidField, referencedNotFound } from '../../http/errors.js';
import { isUuid, type Page } from '../../http/common.js';
import { findRunRow } from '../runs/runs.service.js';
import { checkCron, checkTimezone, nextFiring } from './cron.js';
import type { CreateScheduleInput, UpdateScheduleInput } from './schedules.schemas.js';

type Row = typeof schedules.$inferSelect;

const notFound = () => new AppError('NOT_FOUND', 'Schedule not found');

export function scheduleView(r: Row, now: Date) {
  return {
    id: r.id, agent_id: r.agentId, test_suite_id: r.testSuiteId, cron: r.cron, timezone: r.timezone, test_mode: r.testMode,
    max_scenarios: r.maxScenarios, max_turns: r.maxTurns, repeats: r.repeats, baseline: r.baseline, is_active: r.isActive,
    last_run_id: r.lastRunId, next_run_at: r.isActive ? nextFiring(r.cron, r.timezone, now).toISOString() : null,
    created_at: r.createdAt.toISOString(), updated_at: r.updatedAt.toISOString(),
  };
}

/** The references must exist in the caller's organization, with the codes POST /runs uses. */
async function checkRefs(deps: Deps, ctx: Ctx, input: UpdateScheduleInput) {
  if (input.agent_id !== undefined) {
    if (!isUuid(input.agent_id)) throw invalidField('agent_id', 'agent_id must be a UUID', input.agent_id);
    const [a] = await deps.db.orm.select({ id: agents.id }).from(agents)
      .where(and(eq(agents.orgId, ctx.orgId), eq(agents.id, input.agent_id.toLowerCase()), isNull(agents.deletedAt)));
    if (!a) throw referencedNotFound('AGENT_NOT_FOUND', 'Agent not found', 'agent_id');
  }
  // an empty string is a malformed reference, not "the Default suite" (which is null or absent)
  if (input.test_suite_id !== undefined && input.test_suite_id !== null) {
    if (!isUuid(input.test_suite_id)) throw invalidField('test_suite_id', 'test_suite_id must be a UUID', input.test_suite_id);
    const [s] = await deps.db.orm.select({ id: testSuites.id }).from(testSuites)
      .where(and(eq(testSuites.orgId, ctx.orgId), eq(testSuites.id, input.test_suite_id.toLowerCase())));
    if (!s) throw referencedNotFound('NOT_FOUND', 'Test suite not found', 'test_suite_id');
  }
  if (input.baseline !== undefined && input.baseline !== 'previous' && !isUuid(input.baseline) && !/^TR-\d{1,15}$/i.test(input.baseline)) {
    throw invalidField('baseline', 'baseline must be "previous" or a run (UUID or TR-<n>)', input.baseline);
  }
  // a fixed baseline is checked now, with POST /runs's code, rather than skipping every firing later
  if (input.baseline !== undefined && input.baseline !== 'previous' && !(await findRunRow(deps, ctx, input.baseline))) {
    throw referencedNotFound('RUN_NOT_FOUND', 'Baseline run not found', 'baseline');
  }
}

export async function createSchedule(deps: Deps, ctx: Ctx, input: CreateScheduleInput) {
  const tz = checkTimezone(input.timezone ?? 'UTC');
  const cron = checkCron(input.cron, tz);
  await checkRefs(deps, ctx, input);
  const now = new Date(deps.clock.now());
  const [row] = await deps.db.orm.insert(schedules).values({
    id: uuidv7(), orgId: ctx.orgId, agentId: input.agent_id.toLowerCase(), testSuiteId: input.test_suite_id?.toLowerCase() ?? null,
    cron, timezone: tz, testMode: input.test_mode ?? 'demo', maxScenarios: input.max_scenarios ?? null, maxTurns: input.max_turns ?? null,
    repeats: input.repeats ?? null, baseline: input.baseline ?? 'previous', isActive: input.is_active ?? true, createdAt: now, updatedAt: now,
  }).returning();
  return scheduleView(row, now);
}

async function getRow(deps: Deps, ctx: Ctx, id: string) {
  if (!isUuid(id)) return null;
  const [row] = await deps.db.orm.select().from(schedules).where(and(eq(schedules.orgId, ctx.orgId), eq(schedules.id, id.toLowerCase())));
  return row ?? null;
}

export async function getSchedule(deps: Deps, ctx: Ctx, id: string) {
  const row = await getRow(deps, ctx, id);
  if (!row) throw notFound();
  return scheduleView(row, new Date(deps.clock.now()));
}

export async function listSchedules(deps: Deps, ctx: Ctx, p: Page) {
  const where = eq(schedules.orgId, ctx.orgId);
  const [rows, [{ n }]] = await Promise.all([
    deps.db.orm.select().from(schedules).where(where).orderBy(desc(schedules.createdAt), desc(schedules.id)).limit(p.limit).offset(p.offset),
    deps.db.orm.select({ n: sql<number>`count(*)::int` }).from(schedules).where(where),
  ]);
  const now = new Date(deps.clock.now());
  return { schedules: rows.map((r) => scheduleView(r, now)), total: n, ...p };
}

export async function updateSchedule(deps: Deps, ctx: Ctx, id: string, input: UpdateScheduleInput) {
  const row = await getRow(deps, ctx, id);
  if (!row) throw notFound();
  const tz = input.timezone === undefined ? row.timezone : checkTimezone(input.timezone);
  const cron = input.cron === undefined ? row.cron : checkCron(input.cron, tz);
  if (input.cron === undefined && input.timezone !== undefined) checkCron(cron, tz);
  await checkRefs(deps, ctx, input);
  const now = new Date(deps.clock.now());
  // updated_at also marks where firing starts again: a schedule never fires for a minute before its last change
  const [updated] = await deps.db.orm.update(schedules).set({
    agentId: input.agent_id?.toLowerCase(), testSuiteId: input.test_suite_id === undefined ? undefined : input.test_suite_id?.toLowerCase() ?? null,
    cron, timezone: tz, testMode: input.test_mode, maxScenarios: input.max_scenarios, maxTurns: input.max_turns, repeats: input.repeats,
    baseline: input.baseline, isActive: input.is_active, updatedAt: now,
  }).where(and(eq(schedules.orgId, ctx.orgId), eq(schedules.id, row.id))).returning();
  if (!updated) throw notFound();
  return scheduleView(updated, now);
}

export async function deleteSchedule(deps: Deps, ctx: Ctx, id: string) {
  const row = await getRow(deps, ctx, id);
  if (!row) throw notFound();
  await deps.db.orm.delete(schedules).where(and(eq(schedules.orgId, ctx.orgId), eq(schedules.id, row.id)));
}

export async function listFirings(deps: Deps, ctx: Ctx, id: string, p: Page) {
  const row = await getRow(deps, ctx, id);
  if (!row) throw notFound();
  const where = and(eq(scheduleFirings.orgId, ctx.orgId), eq(scheduleFirings.scheduleId, row.id));
  const [rows, [{ n }]] = await Promise.all([
    deps.db.orm.select().from(scheduleFirings).where(where).orderBy(desc(scheduleFirings.scheduledFor)).limit(p.limit).offset(p.offset),
    deps.db.orm.select({ n: sql<number>`count(*)::int` }).from(scheduleFirings).where(where),
  ]);
  return {
    firings: rows.map((f) => ({
      id: f.id, scheduled_for: f.scheduledFor.toISOString(), fired_at: f.firedAt.toISOString(), status: f.status, run_id: f.runId, reason: f.reason,
    })),
    total: n, ...p,
  };
}
