import { and, asc, desc, eq, isNull, or, sql, type SQL } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { scenarios, testSuites } from '../../db/schema.js';
import type { Ctx, Deps } from '../../deps.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { nameKey, type Page } from '../../http/common.js';
import { normalizeCriterion, type Criterion, type CriterionInput } from '../../engine/types.js';
import type { CreateScenarioInput, UpdateScenarioInput } from './scenarios.schemas.js';

type Row = typeof scenarios.$inferSelect;

export interface ScenarioView {
  id: string; slug: string | null; source: string; name: string; description: string | null; category: string | null; tags: string[];
  persona: string | null; goal: string | null; instructions: string | null; opening_message: string | null;
  script: string[]; criteria: Criterion[]; pass_threshold: number; max_turns: number | null; is_builtin: boolean;
  created_at: string; updated_at: string;
}

export const scenarioView = (r: Row): ScenarioView => ({
  id: r.id, slug: r.slug, source: r.source, name: r.name, description: r.description, category: r.category, tags: r.tags, persona: r.persona,
  goal: r.goal, instructions: r.instructions, opening_message: r.openingMessage, script: r.script,
  // library rows are stored as written in the data files; defaults are applied on the way out
  criteria: (r.criteria as CriterionInput[]).map(normalizeCriterion),
  pass_threshold: r.passThreshold, max_turns: r.maxTurns, is_builtin: r.isBuiltin,
  created_at: r.createdAt.toISOString(), updated_at: r.updatedAt.toISOString(),
});

const notFound = () => new AppError('NOT_FOUND', 'Scenario template not found');
const taken = (name: string) =>
  new AppError('ALREADY_EXISTS', `A scenario template named "${name}" already exists`, { details: { field: 'name' } });
const slugTaken = (slug: string) =>
  new AppError('ALREADY_EXISTS', `A scenario template with slug "${slug}" already exists`, { details: { field: 'slug' } });
const readOnly = () =>
  new AppError('FORBIDDEN', 'Built-in scenario templates are read-only; duplicate it (POST /scenarios/{id}/duplicate) to make an editable copy');

/** Built-ins (org_id null) are visible to every organization. */
const visibleTo = (ctx: Ctx) => or(eq(scenarios.orgId, ctx.orgId), isNull(scenarios.orgId));

// "" is stored as null: optional strings are null when absent, never "".
const text = (v: string | null | undefined) => (v === undefined ? undefined : v === null || v === '' ? null : v);

function checkName(name: string) {
  const n = name.trim();
  if (!n) throw invalidField('name', 'name must not be blank');
  return n;
}

/** The engine compiles regex checks at grading time; a pattern that cannot compile must fail here instead. */
function checkCriteria(criteria: CriterionInput[]): Criterion[] {
  return criteria.map((c, i) => {
    const check = c.check;
    if (check && (check.type === 'regex' || check.type === 'not_regex')) {
      try {
        new RegExp(check.value, 'i');
      } catch (err) {
        throw invalidField(`criteria.${i}.check.value`, `criteria.${i}.check.value is not a valid regular expression: ${(err as Error).message}`, check.value);
      }
    }
    return normalizeCriterion(c);
  });
}

/**
 * Names are unique among the templates an organization sees: its own (enforced by the unique index) and the
 * built-ins (checked here; the library only changes at start), so a suite never lists two alike names.
 */
async function assertBuiltinNameFree(deps: Deps, name: string) {
  const [hit] = await deps.db.orm.select({ id: scenarios.id }).from(scenarios)
    .where(and(isNull(scenarios.orgId), eq(scenarios.nameKey, nameKey(name)))).limit(1);
  if (hit) throw taken(name);
}

/** Slugs are unique among the templates an organization sees, built-ins included (as names are). */
async function assertSlugFree(deps: Deps, ctx: Ctx, slug: string, exceptId?: string) {
  const [hit] = await deps.db.orm.select({ id: scenarios.id }).from(scenarios)
    .where(and(visibleTo(ctx), eq(scenarios.slug, slug))).limit(1);
  if (hit && hit.id !== exceptId) throw slugTaken(slug);
}

export async function getScenarioRow(deps: Deps, ctx: Ctx, id: string): Promise<Row | null> {
  const [row] = await deps.db.orm.select().from(scenarios).where(and(eq(scenarios.id, id), visibleTo(ctx)));
  return row ?? null;
}

export async function listScenarios(deps: Deps, ctx: Ctx, q: { slug?: string; category?: string; tag?: string; q?: string }, p: Page) {
  const conds: (SQL | undefined)[] = [visibleTo(ctx)];
  if (q.slug !== undefined) conds.push(eq(scenarios.slug, q.slug));
  if (q.category) conds.push(sql`lower(${scenarios.category}) = lower(${q.category})`);
  if (q.tag) conds.push(sql`exists (select 1 from jsonb_array_elements_text(${scenarios.tags}) t where lower(t) = lower(${q.tag}))`);
  // strpos instead of ILIKE: the needle is matched literally, so % and _ need no escaping
  if (q.q) conds.push(sql`(strpos(lower(${scenarios.name}), lower(${q.q})) > 0 or strpos(lower(coalesce(${scenarios.description}, '')), lower(${q.q})) > 0)`);
  const where = and(...conds);
  const [rows, [{ n }]] = await Promise.all([
    deps.db.orm.select().from(scenarios).where(where)
      // own templates (position null) newest first, then the built-ins in library order
      .orderBy(asc(scenarios.isBuiltin), asc(scenarios.position), desc(scenarios.createdAt), desc(scenarios.id))
      .limit(p.limit).offset(p.offset),
    deps.db.orm.select({ n: sql<number>`count(*)::int` }).from(scenarios).where(where),
  ]);
  return { scenarios: rows.map(scenarioView), total: n, ...p };
}

export async function getScenario(deps: Deps, ctx: Ctx, id: string) {
  const row = await getScenarioRow(deps, ctx, id);
  if (!row) throw notFound();
  return scenarioView(row);
}

export async function createScenario(deps: Deps, ctx: Ctx, input: CreateScenarioInput) {
  const name = checkName(input.name);
  const criteria = checkCriteria(input.criteria);
  await assertBuiltinNameFree(deps, name);
  if (input.slug) await assertSlugFree(deps, ctx, input.slug);
  const now = new Date(deps.clock.now());
  try {
    const [row] = await deps.db.orm.insert(scenarios).values({
      id: uuidv7(), orgId: ctx.orgId, name, nameKey: nameKey(name), description: text(input.description) ?? null,
      category: text(input.category) ?? null, tags: input.tags ?? [], persona: text(input.persona) ?? null,
      goal: text(input.goal) ?? null, instructions: text(input.instructions) ?? null,
      openingMessage: text(input.opening_message) ?? null, script: input.script ?? [], criteria,
      passThreshold: input.pass_threshold ?? 0.75, maxTurns: input.max_turns ?? null, isBuiltin: false, position: null,
      slug: input.slug ?? null, source: input.source ?? 'api', createdAt: now, updatedAt: now,
    }).returning();
    return scenarioView(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw uniqueHit(err, name, input.slug);
    throw err;
  }
}

export async function updateScenario(deps: Deps, ctx: Ctx, id: string, input: UpdateScenarioInput) {
  const set: Partial<typeof scenarios.$inferInsert> = {};
  if (input.name !== undefined) { set.name = checkName(input.name); set.nameKey = nameKey(set.name); }
  if (input.criteria !== undefined) set.criteria = checkCriteria(input.criteria);
  const row = await getScenarioRow(deps, ctx, id);
  if (!row) throw notFound();
  if (row.isBuiltin) throw readOnly();
  if (set.name !== undefined && set.nameKey !== row.nameKey) await assertBuiltinNameFree(deps, set.name);
  if (input.slug) await assertSlugFree(deps, ctx, input.slug, id);
  set.slug = input.slug;
  set.source = input.source;
  set.description = text(input.description);
  set.category = text(input.category);
  set.persona = text(input.persona);
  set.goal = text(input.goal);
  set.instructions = text(input.instructions);
  set.openingMessage = text(input.opening_message);
  set.tags = input.tags;
  set.script = input.script;
  set.passThreshold = input.pass_threshold;
  set.maxTurns = input.max_turns;
  set.updatedAt = new Date(deps.clock.now());
  try {
    // drizzle skips keys whose value is undefined, so absent fields keep their value
    const [updated] = await deps.db.orm.update(scenarios).set(set)
      .where(and(eq(scenarios.orgId, ctx.orgId), eq(scenarios.id, id))).returning();
    if (!updated) throw notFound();
    return scenarioView(updated);
  } catch (err) {
    if (isUniqueViolation(err)) throw uniqueHit(err, set.name ?? row.name, input.slug);
    throw err;
  }
}

/** Two unique indexes can refuse a write: the constraint's name tells which field was taken. */
function uniqueHit(err: unknown, name: string, slug: string | null | undefined) {
  let text = '';
  for (let e: any = err; e; e = e.cause) text += ` ${e.constraint ?? ''} ${e.message ?? ''}`;
  return slug && text.includes('slug') ? slugTaken(slug) : taken(name);
}

/** Suites of the organization that list this template, for the INVALID_STATE answer. */
async function suitesUsing(tx: { orm: Deps['db']['orm'] }, ctx: Ctx, id: string) {
  return tx.orm.select({ id: testSuites.id, name: testSuites.name }).from(testSuites)
    .where(and(eq(testSuites.orgId, ctx.orgId), sql`${testSuites.scenarioIds} @> ${JSON.stringify([id])}::jsonb`))
    .orderBy(asc(testSuites.createdAt), asc(testSuites.id));
}

/**
 * Refused while a suite lists the template, so a suite never points at nothing. Deleting first and checking
 * after, in one transaction, closes the race with a suite being created: suite writes take FOR SHARE locks on
 * the templates they list, so one of the two waits for the other and then sees its outcome.
 */
export async function deleteScenario(deps: Deps, ctx: Ctx, id: string) {
  const row = await getScenarioRow(deps, ctx, id);
  if (!row) throw notFound();
  if (row.isBuiltin) throw readOnly();
  await deps.db.transaction(async (tx) => {
    const deleted = await tx.orm.delete(scenarios).where(and(eq(scenarios.orgId, ctx.orgId), eq(scenarios.id, id))).returning({ id: scenarios.id });
    if (deleted.length === 0) throw notFound();
    const using = await suitesUsing(tx, ctx, id);
    if (using.length > 0) {
      throw new AppError('INVALID_STATE', `The scenario template is used by ${using.length} test suite(s); remove it from them first`, {
        details: { test_suites: using },
      });
    }
  });
}

const copyName = (base: string, n: number) => (n === 1 ? `${base} (copy)` : `${base} (copy ${n})`);

/** An editable copy in the caller's organization, named "<name> (copy)", "(copy 2)", … whichever is free first. */
export async function duplicateScenario(deps: Deps, ctx: Ctx, id: string) {
  const src = await getScenarioRow(deps, ctx, id);
  if (!src) throw notFound();
  const prefix = nameKey(`${src.name} (copy`);
  const used = new Set((await deps.db.orm.select({ k: scenarios.nameKey }).from(scenarios)
    .where(and(visibleTo(ctx), sql`left(${scenarios.nameKey}, ${prefix.length}) = ${prefix}`))).map((r) => r.k));
  const now = new Date(deps.clock.now());
  for (let n = 1, tries = 0; ; n++) {
    const name = copyName(src.name, n);
    if (used.has(nameKey(name))) continue;
    try {
      const [row] = await deps.db.orm.insert(scenarios).values({
        ...src, id: uuidv7(), orgId: ctx.orgId, name, nameKey: nameKey(name), isBuiltin: false, position: null, slug: null, source: 'api',
        criteria: (src.criteria as CriterionInput[]).map(normalizeCriterion), createdAt: now, updatedAt: now,
      }).returning();
      return scenarioView(row);
    } catch (err) {
      // a concurrent duplicate took this name: try the next one
      if (!isUniqueViolation(err) || ++tries > 20) throw err;
    }
  }
}
