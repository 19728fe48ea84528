import type { CriterionResult, RehearsalClient, Run, ScenarioResult } from '../client/index.js';

// What `rehearsal run` and `rehearsal demo` print once a run is final: one row per scenario with its
// verdict, score and the first criterion it missed, then the pass rate and the run's metrics.

export interface ResultRow extends ScenarioResult {
  /** Decided score (awarded / possible over decided criteria), when known. */
  score: number | null;
  /** Criteria not met (NOT_MET, PARTIAL, or a required one left UNSURE), for failed scenarios. */
  unmet_criteria: CriterionResult[];
}

const isUnmet = (c: CriterionResult) => c.decision === 'NOT_MET' || c.decision === 'PARTIAL' || (c.decision === 'UNSURE' && c.required === true);

function scoreFromCriteria(cs: CriterionResult[]): number | null {
  const decided = cs.filter((c) => c.decision !== 'UNSURE');
  const possible = decided.reduce((n, c) => n + c.max_points, 0);
  return possible > 0 ? decided.reduce((n, c) => n + c.points_awarded, 0) / possible : null;
}

/** The score the service printed in grade_summary ("… (score 0.88) …"), for rows we did not fetch in full. */
const scoreFromSummary = (s: string | null) => {
  const m = s ? /\(score (\d+(?:\.\d+)?)\)/.exec(s) : null;
  return m ? Number(m[1]) : null;
};

/** Every result of the run; failed scenarios are fetched in full to name the criteria they missed. */
export async function collectResults(client: RehearsalClient, runId: string, signal?: AbortSignal): Promise<ResultRow[]> {
  const rows: ResultRow[] = [];
  for await (const r of client.runs.iterateResults(runId, {}, { signal })) rows.push({ ...r, score: scoreFromSummary(r.grade_summary), unmet_criteria: [] });
  const failed = rows.filter((r) => r.status === 'failed');
  // a few at a time: a big suite's failures should not trip the per-key request rate
  for (let i = 0; i < failed.length; i += 4) {
    await Promise.all(failed.slice(i, i + 4).map(async (row) => {
      const sr = await client.scenarioRuns.get(row.id, { signal });
      row.unmet_criteria = sr.criteria_results.filter(isUnmet);
      row.score = scoreFromCriteria(sr.criteria_results) ?? row.score;
    }));
  }
  return rows;
}

const VERDICT: Record<string, string> = { passed: 'PASS', failed: 'FAIL', error: 'ERROR', pending: 'NOT RUN', running: 'NOT RUN', grading: 'NOT RUN' };

export function whyNot(row: ResultRow): string {
  if (row.status === 'error') return row.error_message ?? 'error';
  if (row.status === 'failed') {
    const c = row.unmet_criteria[0];
    return c ? `${c.decision === 'PARTIAL' ? '(partial) ' : c.decision === 'UNSURE' ? '(unsure) ' : ''}${c.criterion}` : (row.grade_summary ?? '');
  }
  if (row.status !== 'passed') return 'not finished';
  return '';
}

const cut = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, Math.max(1, n - 1))}…`);
const pad = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - s.length));

export function renderTable(rows: ResultRow[], columns: number): string {
  const nameW = Math.min(columns < 120 ? 36 : 60, Math.max(8, ...rows.map((r) => r.scenario_name.length)));
  const fixed = 4 + nameW + 2 + 7 + 2 + 5 + 2;
  const whyW = Math.max(20, columns - fixed - 1);
  const head = `${pad('#', 4)}${pad('Scenario', nameW)}  ${pad('Verdict', 7)}  ${pad('Score', 5)}  First unmet criterion`;
  const lines = rows.map((r, i) => {
    const score = r.score === null ? '  -' : r.score.toFixed(2);
    return `${pad(String(i + 1), 4)}${pad(cut(r.scenario_name, nameW), nameW)}  ${pad(VERDICT[r.status] ?? r.status, 7)}  ${pad(score, 5)}  ${cut(whyNot(r), whyW)}`.trimEnd();
  });
  const rule = '-'.repeat(Math.min(columns - 1, Math.max(head.length, ...lines.map((l) => l.length))));
  return [head, rule, ...lines].join('\n') + '\n';
}

const ms = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : `${Math.round(v)} ms`);

export function summaryLines(run: Run): string {
  const graded = run.passed_count + run.failed_count;
  const unfinished = run.total_scenarios - graded - run.error_count;
  const parts = [`${run.passed_count} passed`, `${run.failed_count} failed`, `${run.error_count} errors`];
  if (unfinished > 0) parts.push(`${unfinished} not finished`);
  const secs = run.duration_seconds === null ? '' : `, ${run.duration_seconds.toFixed(1)} s`;
  const lines = [`Pass rate: ${run.pass_rate}% (${parts.join(', ')} of ${run.total_scenarios} scenarios${secs})`];
  const m = run.metrics;
  if (m) {
    const cost = m.total_cost_usd === null ? 'cost n/a' : `cost $${m.total_cost_usd.toFixed(4)}`;
    lines.push(`Metrics: first response ${ms(m.time_to_first_response_ms)} avg · turn ${ms(m.average_turn_duration_ms)} avg (p50 ${ms(m.p50_turn_duration_ms)}, p95 ${ms(m.p95_turn_duration_ms)}) · ${m.turn_count === null ? 'n/a' : m.turn_count.toFixed(1)} turns avg · conversation ${ms(m.total_duration_ms)} avg · ${cost}`);
  }
  if (run.error_message) lines.push(`Run error: ${run.error_message}`);
  return lines.join('\n') + '\n';
}
