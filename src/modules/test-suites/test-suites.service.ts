import { and, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { Tx } from '../../db/client.js';
import { scenarios, testSuites } from '../../db/schema.js';
import type { Ctx, Deps } from '../../deps.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { isUuid, nameKey, type Page } from '../../http/common.js';
import type { CreateTestSuiteInput, UpdateTestSuiteInput } from './test-suites.schemas.js';

type Row = typeof testSuites.$inferSelect;

export interface TestSuiteView {
  id: string; name: string; description: string | null; scenario_count: number; scenario_ids: string[];
  is_default: boolean; source: string; created_at: string; updated_at: string;
}

export const testSuiteView = (r: Row): TestSuiteView => ({
  id: r.id, name: r.name, description: r.description, scenario_count: r.scenarioIds.length, scenario_ids: r.scenarioIds,
  is_default: r.isDefault, source: r.source, created_at: r.createdAt.toISOString(), updated_at: r.updatedAt.toISOString(),
});

const notFound = () => new AppError('NOT_FOUND', 'Test suite not found');
const taken = (name: string) => new AppError('ALREADY_EXISTS', `A test suite named "${name}" already exists`, { details: { field: 'name' } });

function checkName(name: string) {
  const n = name.trim();
  if (!n) throw invalidField('name', 'name must not be blank');
  return n;
}

/** Shape checks that need no database: UUIDs, no repeats. Returns the ids lower-cased, order kept. */
function checkIdList(ids: string[]): string[] {
  const out: string[] = [];
  ids.forEach((raw, i) => {
    if (!isUuid(raw)) throw invalidField(`scenario_ids.${i}`, `scenario_ids.${i} is not a UUID`, raw);
    out.push(raw.toLowerCase());
  });
  const seen = new Set<string>();
  const dup = [...new Set(out.filter((x) => (seen.has(x) ? true : (seen.add(x), false))))];
  if (dup.length > 0) {
    throw new AppError('INVALID_FIELD_VALUE', 'scenario_ids must not repeat a scenario', { details: { field: 'scenario_ids', duplicate_ids: dup } });
  }
  return out;
}

/**
 * Every id must name a template the organization sees (own or built-in). FOR SHARE holds those rows until the
 * suite write commits, so a concurrent DELETE /scenarios/{id} either waits and then sees this suite, or wins
 * and this check no longer finds the template.
 */
async function assertVisible(tx: Tx, ctx: Ctx, ids: string[]) {
  const found = await tx.orm.select({ id: scenarios.id }).from(scenarios)
    .where(and(inArray(scenarios.id, ids), or(eq(scenarios.orgId, ctx.orgId), isNull(scenarios.orgId))))
    .for('share');
  const known = new Set(found.map((r) => r.id));
  const unknown = ids.filter((x) => !known.has(x));
  if (unknown.length > 0) {
    throw new AppError('INVALID_FIELD_VALUE', `Unknown scenario template id(s): ${unknown.join(', ')}`, {
      details: { field: 'scenario_ids', unknown_ids: unknown },
    });
  }
}

async function getRow(deps: Deps, ctx: Ctx, id: string, tx?: Tx): Promise<Row | null> {
  const [row] = await (tx ?? deps.db).orm.select().from(testSuites).where(and(eq(testSuites.orgId, ctx.orgId), eq(testSuites.id, id)));
  return row ?? null;
}

export async function createTestSuite(deps: Deps, ctx: Ctx, input: CreateTestSuiteInput) {
  const name = checkName(input.name);
  const ids = checkIdList(input.scenario_ids);
  const now = new Date(deps.clock.now());
  try {
    return await deps.db.transaction(async (tx) => {
      await assertVisible(tx, ctx, ids);
      const [row] = await tx.orm.insert(testSuites).values({
        id: uuidv7(), orgId: ctx.orgId, name, nameKey: nameKey(name), description: input.description || null,
        isDefault: false, scenarioIds: ids, source: input.source ?? 'api', createdAt: now, updatedAt: now,
      }).returning();
      return testSuiteView(row);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(name);
    throw err;
  }
}

export async function listTestSuites(deps: Deps, ctx: Ctx, p: Page) {
  const where = eq(testSuites.orgId, ctx.orgId);
  const [rows, [{ n }]] = await Promise.all([
    deps.db.orm.select().from(testSuites).where(where).orderBy(desc(testSuites.createdAt), desc(testSuites.id)).limit(p.limit).offset(p.offset),
    deps.db.orm.select({ n: sql<number>`count(*)::int` }).from(testSuites).where(where),
  ]);
  return { test_suites: rows.map(testSuiteView), total: n, ...p };
}

export async function getTestSuite(deps: Deps, ctx: Ctx, id: string) {
  const row = await getRow(deps, ctx, id);
  if (!row) throw notFound();
  return testSuiteView(row);
}

export async function updateTestSuite(deps: Deps, ctx: Ctx, id: string, input: UpdateTestSuiteInput) {
  const set: Partial<typeof testSuites.$inferInsert> = { updatedAt: new Date(deps.clock.now()), source: input.source };
  if (input.name !== undefined) { set.name = checkName(input.name); set.nameKey = nameKey(set.name); }
  if (input.description !== undefined) set.description = input.description || null;
  const ids = input.scenario_ids === undefined ? undefined : checkIdList(input.scenario_ids);
  try {
    return await deps.db.transaction(async (tx) => {
      if (!(await getRow(deps, ctx, id, tx))) throw notFound();
      if (ids) { await assertVisible(tx, ctx, ids); set.scenarioIds = ids; }
      const [row] = await tx.orm.update(testSuites).set(set).where(and(eq(testSuites.orgId, ctx.orgId), eq(testSuites.id, id))).returning();
      if (!row) throw notFound();
      return testSuiteView(row);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(set.name ?? '');
    throw err;
  }
}

/** The default suite is what POST /runs uses without test_suite_id, so it cannot be deleted (it can be renamed or edited). */
export async function deleteTestSuite(deps: Deps, ctx: Ctx, id: string) {
  const row = await getRow(deps, ctx, id);
  if (!row) throw notFound();
  if (row.isDefault) {
    throw new AppError('INVALID_STATE', 'The default test suite is used by runs started without test_suite_id and cannot be deleted; edit it instead');
  }
  const deleted = await deps.db.orm.delete(testSuites).where(and(eq(testSuites.orgId, ctx.orgId), eq(testSuites.id, id))).returning({ id: testSuites.id });
  if (deleted.length === 0) throw notFound();
}

/**
 * For the runs module: the suite a run uses — the given one, or the organization's default when `suiteId` is
 * null. `null` when absent or in another organization; the caller chooses the error.
 */
export async function getSuiteForRun(deps: Deps, ctx: Ctx, suiteId: string | null, tx?: Tx): Promise<{ id: string; name: string; scenario_ids: string[] } | null> {
  if (suiteId !== null && !isUuid(suiteId)) return null;
  const [row] = await (tx ?? deps.db).orm.select({ id: testSuites.id, name: testSuites.name, scenarioIds: testSuites.scenarioIds }).from(testSuites)
    .where(and(eq(testSuites.orgId, ctx.orgId), suiteId === null ? eq(testSuites.isDefault, true) : eq(testSuites.id, suiteId.toLowerCase())))
    .orderBy(desc(testSuites.createdAt)).limit(1);
  return row ? { id: row.id, name: row.name, scenario_ids: row.scenarioIds } : null;
}
