import { and, eq } from 'drizzle-orm';
import { isDeepStrictEqual } from 'node:util';
import { scenarioRuns } from '../../db/schema.js';
import type { Ctx, Deps } from '../../deps.js';
import { isUuid } from '../../http/common.js';
import { AppError, missingField } from '../../lib/errors.js';

interface Entry { role: string; content: string; tool_calls?: { name: string; arguments: unknown; result?: unknown }[] }
interface Criterion { criterion: string; decision: string }

// Tool call ids are minted per conversation, so two equal calls are equal by name, arguments and result.
const calls = (e: Entry | undefined) => (e?.tool_calls ?? []).map((c) => ({ name: c.name, arguments: c.arguments, result: c.result ?? null }));

/** Two transcripts aligned by position, their first difference, and their criteria side by side. */
export function diffScenarioRuns(current: { transcript: Entry[]; criteria: Criterion[] }, against: { transcript: Entry[]; criteria: Criterion[] }) {
  const n = Math.max(current.transcript.length, against.transcript.length);
  const entries = Array.from({ length: n }, (_, index) => {
    const c = current.transcript[index];
    const a = against.transcript[index];
    const same = c !== undefined && a !== undefined && c.role === a.role && c.content === a.content && isDeepStrictEqual(calls(c), calls(a));
    return { index, role: (c ?? a).role, current: c ? c.content : null, against: a ? a.content : null, same };
  });
  const first = entries.find((e) => !e.same);
  const m = Math.max(current.criteria.length, against.criteria.length);
  const criteria = Array.from({ length: m }, (_, i) => {
    const c = current.criteria[i]?.decision ?? null;
    const a = against.criteria[i]?.decision ?? null;
    return { criterion_index: i, criterion: current.criteria[i]?.criterion ?? against.criteria[i]?.criterion ?? '', current: c, against: a, same: c === a };
  });
  return { first_divergence: first ? first.index : null, entries, criteria };
}

/** GET /scenario-runs/{id}/diff?against=: both scenario runs must belong to the caller's organization. */
export async function getScenarioRunDiff(deps: Deps, ctx: Ctx, id: string, against: string | undefined) {
  if (against === undefined || against === '') throw missingField('against');
  const load = async (ref: string) => {
    if (!isUuid(ref)) return null;
    const [row] = await deps.db.orm.select({ transcript: scenarioRuns.transcript, criteria: scenarioRuns.criteriaResults }).from(scenarioRuns)
      .where(and(eq(scenarioRuns.orgId, ctx.orgId), eq(scenarioRuns.id, ref.toLowerCase())));
    return row ? { transcript: row.transcript as Entry[], criteria: row.criteria as Criterion[] } : null;
  };
  const [current, other] = [await load(id), await load(against)];
  if (!current || !other) throw new AppError('SCENARIO_RUN_NOT_FOUND', 'Scenario run not found');
  return diffScenarioRuns(current, other);
}
