// `rehearsal test --dry-run`: the plan the service answered to POST /runs?dry_run=true, printed.

import type { RunPlan } from '../modules/runs/run-plan.js';

export type { RunPlan };

export function printPlan(p: RunPlan): string {
  const c = p.max_model_calls;
  return [
    `Dry run: ${p.scenario_count} scenarios × ${p.repeats} = ${p.conversations} conversations, at most ${p.max_total_turns} turns`,
    ...p.scenarios.map((s) => `  ${(s.slug ?? s.scenario_id).padEnd(40)} ${String(s.max_turns).padStart(3)} turns  ${s.name}`),
    `Model calls at most: ${c.total} (tester ${c.tester}, agent ${c.agent}, judge ${c.judge}, confirmations ${c.confirmations})`,
    `Estimated LLM cost: ${p.estimated_cost_usd === null ? 'unknown (set REHEARSAL_LLM_PRICE_PER_1K_INPUT and _OUTPUT)' : `$${p.estimated_cost_usd.toFixed(4)}`}`,
    ...p.warnings.map((w) => `Warning: ${w}`),
    '',
  ].join('\n');
}
