import type { Comparison, Run } from '../client/index.js';
import type { ResultRow } from './report.js';

// JUnit XML for CI test reporters: the run is a <testsuite>, each scenario a <testcase>. A failed scenario
// carries its unmet criteria in <failure>; one that errored on the agent's side (timeout, hang-up, no reply)
// is the agent's failure too, <failure type="agent">; other errors (judge, tester, provider, ours) are
// <error>; one that never finished (run canceled or timed out) is <skipped>.

// XML 1.0 forbids most control characters even when escaped; they are dropped.
// eslint-disable-next-line no-control-regex
const INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function xmlEscape(s: string): string {
  return s.replace(INVALID, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const attrs = (a: Record<string, string | number>) => Object.entries(a).map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`).join('');
const seconds = (ms: number | null) => ((ms ?? 0) / 1000).toFixed(3);

const isAgentError = (r: ResultRow) => r.status === 'error' && r.fault === 'agent';

function testcase(row: ResultRow, classname: string): string {
  const open = `    <testcase${attrs({ classname, name: row.scenario_name, time: seconds(row.duration_ms) })}`;
  if (row.status === 'passed') return `${open}/>`;
  if (row.status === 'failed') {
    const lines = row.unmet_criteria.map((c) => `${c.decision}${c.required ? ' (required)' : ''}: ${c.criterion}\n  ${c.rationale}`);
    const message = row.unmet_criteria[0]?.criterion ?? row.grade_summary ?? 'failed';
    const body = [row.grade_summary ?? '', '', ...lines].join('\n').trim();
    return `${open}>\n      <failure${attrs({ message, type: 'criteria_not_met' })}>${xmlEscape(body)}</failure>\n    </testcase>`;
  }
  if (isAgentError(row)) {
    const message = row.error_message ?? 'agent error';
    return `${open}>\n      <failure${attrs({ message, type: 'agent' })}>${xmlEscape(message)}</failure>\n    </testcase>`;
  }
  if (row.status === 'error') {
    const message = row.error_message ?? 'error';
    return `${open}>\n      <error${attrs({ message, type: message.split(':')[0] })}>${xmlEscape(message)}</error>\n    </testcase>`;
  }
  return `${open}>\n      <skipped${attrs({ message: `not finished (${row.status})` })}/>\n    </testcase>`;
}

/**
 * One extra test case per regressed scenario, named "<scenario> (regression)", carrying its one-sided Fisher
 * p-value: a failure when the regression is significant after Holm, a passing case that says so otherwise.
 */
function regressionTestcases(c: Comparison | null | undefined, classname: string) {
  return (c?.scenarios ?? []).filter((s) => s.change === 'regressed').map((s) => {
    const message = `regressed against ${c!.baseline_run_id}: ${s.baseline.passed}/${s.baseline.attempts} → ${s.current.passed}/${s.current.attempts} passed, ` +
      `p_value ${s.p_value}, ${s.significant ? 'significant' : 'not significant'} after Holm correction`;
    const open = `    <testcase${attrs({ classname, name: `${s.scenario_name} (regression)`, time: '0.000' })}>`;
    const body = s.significant ? `<failure${attrs({ message, type: 'regression' })}>${xmlEscape(message)}</failure>` : `<system-out>${xmlEscape(message)}</system-out>`;
    return { failed: s.significant, xml: `${open}
      ${body}
    </testcase>` };
  });
}

export function junitXml(run: Run, rows: ResultRow[], suiteName: string, comparison?: Comparison | null): string {
  const classname = `rehearsal.${suiteName}`;
  const regressions = regressionTestcases(comparison, classname);
  const failures = rows.filter((r) => r.status === 'failed' || isAgentError(r)).length + regressions.filter((r) => r.failed).length;
  const errors = rows.filter((r) => r.status === 'error' && !isAgentError(r)).length;
  const skipped = rows.length + regressions.length - failures - errors - rows.filter((r) => r.status === 'passed').length - regressions.filter((r) => !r.failed).length;
  const time = run.duration_seconds ?? 0;
  const props: Record<string, string | number> = {
    test_run_id: run.test_run_id, run_id: run.id, status: run.status, agent: run.agent_name, pass_rate: run.pass_rate, test_mode: run.test_mode, max_turns: run.max_turns,
    repeats: run.repeats,
  };
  if (run.stats.pass_rate_ci) props.pass_rate_ci = `${run.stats.pass_rate_ci.low}-${run.stats.pass_rate_ci.high}`;
  if (comparison) Object.assign(props, { baseline_run_id: comparison.baseline_run_id, comparison_verdict: comparison.verdict });
  const counts = { tests: rows.length + regressions.length, failures, errors, skipped, time: time.toFixed(3) };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: 'rehearsal', ...counts })}>`,
    `  <testsuite${attrs({ name: `${run.name} (${run.test_run_id})`, ...counts, timestamp: run.started_at })}>`,
    '    <properties>',
    ...Object.entries(props).map(([name, value]) => `      <property${attrs({ name, value })}/>`),
    '    </properties>',
    ...rows.map((r) => testcase(r, classname)),
    ...regressions.map((r) => r.xml),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
