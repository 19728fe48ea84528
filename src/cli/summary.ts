import type { Run } from '../client/index.js';
import { whyNot, type ResultRow } from './report.js';

// `rehearsal test --summary <file.md>`: a Markdown report for a pull-request comment or $GITHUB_STEP_SUMMARY.

/** The run's 95 % interval of its pass rate, in percent (repetitions of a scenario counted as correlated). */
export function passRateInterval(run: Run): [number, number] | null {
  const ci = run.stats.pass_rate_ci;
  return ci ? [ci.low, ci.high] : null;
}

const md = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
const pct = (x: number) => `${Math.round(x * 10) / 10}%`;

const VERDICT: Record<string, string> = { fail: 'FAIL', flaky: 'FLAKY', error: 'ERROR', pending: 'NOT RUN' };

/** One line per scenario that did not pass every attempt: failed, flaky, errored or unfinished, in run order. */
function notPassing(rows: ResultRow[]): { name: string; verdict: string; why: string }[] {
  const byScenario = new Map<string, ResultRow[]>();
  for (const r of rows) byScenario.set(r.scenario_id, [...(byScenario.get(r.scenario_id) ?? []), r]);
  const out: { name: string; verdict: string; why: string }[] = [];
  for (const attempts of byScenario.values()) {
    const passed = attempts.filter((r) => r.status === 'passed').length;
    if (passed === attempts.length) continue;
    const failed = attempts.filter((r) => r.status === 'failed');
    const errored = attempts.filter((r) => r.status === 'error');
    // flaky as the aggregates say it: passed on some attempts and failed on others
    const verdict = passed > 0 && failed.length > 0 ? 'flaky' : failed.length > 0 ? 'fail' : errored.length > 0 ? 'error' : 'pending';
    const shown = failed[0] ?? errored[0] ?? attempts.find((r) => r.status !== 'passed')!;
    const counts = attempts.length > 1 ? ` (${passed}/${attempts.length} passed)` : '';
    out.push({ name: attempts[0].scenario_name, verdict: `${VERDICT[verdict]}${counts}`, why: whyNot(shown) });
  }
  return out;
}

/** The comparison's text lines as Markdown: the verdict line, then one list item per detail. */
function comparisonMarkdown(text: string): string[] {
  const [head, ...rest] = text.trimEnd().split('\n');
  return [md(head), ...(rest.length ? ['', ...rest.map((l) => `- ${md(l.trim())}`)] : [])];
}

export function summaryMarkdown(run: Run, rows: ResultRow[], opts: { serviceUrl: string | null; verdict: string; comparison: string | null }): string {
  const ci = passRateInterval(run);
  const out = [
    `## Rehearsal: ${md(run.name)} (${run.test_run_id})`,
    '',
    `**${opts.verdict}**`,
    '',
    `Pass rate **${pct(run.pass_rate)}**${ci ? ` (95% interval ${pct(ci[0])}–${pct(ci[1])})` : ''} · ${run.passed_count} passed · ${run.failed_count} failed · ${run.error_count} errors of ${run.total_scenarios} scenario runs · status ${run.status}`,
    '',
    ...(opts.comparison ? comparisonMarkdown(opts.comparison) : ['Comparison with a baseline: none for this run.']),
    '',
  ];
  const bad = notPassing(rows);
  if (bad.length > 0) {
    out.push('| Scenario | Verdict | First unmet criterion |', '|---|---|---|');
    for (const r of bad) out.push(`| ${md(r.name)} | ${r.verdict} | ${md(r.why)} |`);
    out.push('');
  } else out.push('Every scenario passed.', '');
  if (opts.serviceUrl) out.push(`[Open ${run.test_run_id} on the dashboard](${opts.serviceUrl.replace(/\/+$/, '')}/runs/${run.id})`, '');
  return out.join('\n');
}
