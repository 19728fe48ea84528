import { Type, type Static } from '@sinclair/typebox';
import { and, eq, inArray, isNull, or } from 'drizzle-orm';
import { scenarios } from '../../db/schema.js';
import type { Ctx, Deps } from '../../deps.js';
import { Nullable, Uuid } from '../../http/common.js';
import { normalizeCriterion, type CriterionInput } from '../../engine/types.js';
import { resolveRun } from './runs.service.js';
import type { CreateRunInput } from './runs.schemas.js';

// POST /runs?dry_run=true: what a run would do, validated exactly as a real one, without creating it.

/**
 * Token budget per model call for the cost estimate: an upper-end guess for a tester line (persona, goal and
 * the transcript so far in, one line out) and a judge verdict (the transcript and criteria in, JSON out).
 */
export const ESTIMATE_TOKENS = { tester: { input: 1500, output: 100 }, judge: { input: 4000, output: 600 } } as const;
/** The judge is asked once more after invalid output, so a conversation takes at most two judge calls. */
const JUDGE_CALLS_MAX = 2;

/** The plan's answer: the route's response schema and the CLI's type. */
export const RunPlanSchema = Type.Object({
  dry_run: Type.Literal(true),
  scenarios: Type.Array(Type.Object({ scenario_id: Uuid, slug: Nullable(Type.String()), name: Type.String(), repeats: Type.Integer(), max_turns: Type.Integer({ description: 'The cap its conversations run under' }) })),
  scenario_count: Type.Integer(), repeats: Type.Integer(), conversations: Type.Integer(),
  max_total_turns: Type.Integer({ description: 'Σ repeats × max_turns over the scenarios' }),
  max_model_calls: Type.Object({ tester: Type.Integer(), agent: Type.Integer(), judge: Type.Integer(), confirmations: Type.Integer(), total: Type.Integer() }),
  estimated_cost_usd: Nullable(Type.Number({ description: 'null unless REHEARSAL_LLM_PRICE_PER_1K_INPUT / _OUTPUT are set' })),
  warnings: Type.Array(Type.String()),
});
export type RunPlan = Static<typeof RunPlanSchema>;

export async function planRun(deps: Deps, ctx: Ctx, input: CreateRunInput): Promise<RunPlan> {
  const { selected, maxTurns, warnings, repeats } = await deps.db.transaction((tx) => resolveRun(deps, tx, ctx, input));
  const rows = await deps.db.orm.select({
    id: scenarios.id, slug: scenarios.slug, name: scenarios.name, maxTurns: scenarios.maxTurns, criteria: scenarios.criteria, script: scenarios.script,
  }).from(scenarios).where(and(inArray(scenarios.id, selected), or(eq(scenarios.orgId, ctx.orgId), isNull(scenarios.orgId))));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const { testerModel, judgeModel } = deps.config.llm;
  const calls = { tester: 0, agent: 0, judge: 0, confirmations: 0 };
  const list = selected.map((id) => {
    const s = byId.get(id)!;
    const cap = s.maxTurns ? Math.min(maxTurns, s.maxTurns) : maxTurns;
    const judged = (s.criteria as CriterionInput[]).map(normalizeCriterion).some((c) => c.check === null);
    calls.agent += repeats * cap;
    if (testerModel) calls.tester += repeats * cap;
    if (judged && judgeModel) {
      calls.judge += repeats * JUDGE_CALLS_MAX;
      // confirmations re-ask at most once more per planned vote, one call a round
      calls.confirmations += repeats * deps.config.judgeConfirmations;
    }
    return { scenario_id: s.id, slug: s.slug, name: s.name, repeats, max_turns: cap };
  });
  const prices = deps.config.llmPrices ?? { input: null, output: null };
  const priced = prices.input !== null || prices.output !== null;
  const cost = (n: number, t: { input: number; output: number }) => (n * (t.input * (prices.input ?? 0) + t.output * (prices.output ?? 0))) / 1000;
  const usd = priced ? Math.round((cost(calls.tester, ESTIMATE_TOKENS.tester) + cost(calls.judge + calls.confirmations, ESTIMATE_TOKENS.judge)) * 1e6) / 1e6 : null;
  return {
    dry_run: true, scenarios: list, scenario_count: list.length, repeats, conversations: list.length * repeats,
    max_total_turns: list.reduce((n, s) => n + s.repeats * s.max_turns, 0),
    max_model_calls: { ...calls, total: calls.tester + calls.agent + calls.judge + calls.confirmations },
    estimated_cost_usd: usd, warnings,
  };
}
