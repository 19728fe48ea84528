import type { Comparison, RehearsalClient, ScenarioAggregate } from '../client/index.js';

// What repeats and a baseline add to `rehearsal run`'s report: attempts per scenario as dots, flaky and broken
// labels, the run's interval, and the comparison with its baseline naming the regressed scenarios.

const DOT: Record<string, string> = { passed: '●', failed: '○', error: '×' };
const LABEL: Record<string, string> = { pass: 'pass', fail: 'broken', flaky: 'flaky', error: 'error', pending: 'pending' };

export interface Extras { aggregates: ScenarioAggregate[]; comparison: Comparison | null }

/** The aggregates (when scenarios were repeated) and the comparison (when the run has a baseline). */
export async function collectExtras(client: RehearsalClient, run: { id: string; repeats: number; baseline_run_id: string | null }, signal?: AbortSignal): Promise<Extras> {
  const aggregates: ScenarioAggregate[] = [];
  if (run.repeats > 1) for await (const a of client.runs.iterateScenarios(run.id, { signal })) aggregates.push(a);
  const comparison = run.baseline_run_id ? await client.runs.comparison(run.id, {}, { signal }) : null;
  return { aggregates, comparison };
}

/** The attempts of one scenario in order of repetition: ● passed, ○ failed, × error, · not finished. */
export function dots(a: ScenarioAggregate, statuses: string[]): string {
  return statuses.map((s) => DOT[s] ?? '·').join('') || '·'.repeat(a.attempts);
}

const pct = (x: number | null) => (x === null ? 'n/a' : `${x}%`);
const p = (x: number | null) => (x === null ? '' : x < 0.001 ? 'p < 0.001' : `p = ${x.toFixed(3)}`);

export function attemptLines(aggs: ScenarioAggregate[], statusesOf: (scenarioId: string) => string[]): string {
  if (aggs.length === 0) return '';
  const width = Math.min(48, Math.max(8, ...aggs.map((a) => a.scenario_name.length)));
  const lines = aggs.map((a) => {
    const ci = a.pass_rate_ci ? ` [${a.pass_rate_ci.low}–${a.pass_rate_ci.high}%]` : '';
    const name = a.scenario_name.length > width ? `${a.scenario_name.slice(0, width - 1)}…` : a.scenario_name.padEnd(width);
    return `${name}  ${dots(a, statusesOf(a.scenario_id))}  ${LABEL[a.verdict].padEnd(7)} ${pct(a.pass_rate)}${ci}`.trimEnd();
  });
  return ['Attempts per scenario (● passed ○ failed × error):', ...lines].join('\n') + '\n';
}

export function intervalLine(ci: { low: number; high: number } | null, stats: { flaky_count: number; pass_all_count: number }, scenarioCount: number): string {
  const range = ci ? `95% interval ${ci.low}–${ci.high}% (repetitions of a scenario counted as correlated)` : 'no interval: nothing was graded';
  return `Pass rate ${range}; ${stats.pass_all_count} of ${scenarioCount} scenarios passed every attempt, ${stats.flaky_count} flaky\n`;
}

export function comparisonLines(c: Comparison, baselineName: string): string {
  const out = [`Compared with ${baselineName}: ${c.verdict.toUpperCase()} (pass rate ${pct(c.pass_rate.baseline)} → ${pct(c.pass_rate.current)}` +
    `${c.pass_rate.delta === null ? '' : `, ${c.pass_rate.delta > 0 ? '+' : ''}${c.pass_rate.delta}`})`];
  const k = c.counts;
  out.push(`  ${k.regressed} regressed · ${k.improved} improved · ${k.unchanged} unchanged · ${k.flaky} flaky · ${k.changed_template} changed template · ` +
    `${k.incomparable} incomparable · ${k.added} added · ${k.removed} removed`);
  for (const s of c.scenarios.filter((x) => x.change === 'regressed' || x.change === 'improved')) {
    const side = (x: { passed: number; attempts: number }) => `${x.passed}/${x.attempts}`;
    out.push(`  ${s.change === 'regressed' ? 'REGRESSED' : 'improved '} ${s.scenario_name}: ${side(s.baseline)} → ${side(s.current)} passed, ` +
      `${p(s.p_value)}${s.significant ? ' (significant after Holm)' : ' (not significant)'}`);
  }
  for (const w of c.comparability.warnings) out.push(`  warning: ${w}`);
  return out.join('\n') + '\n';
}
