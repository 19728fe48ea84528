import type { Run } from '../client/index.js';
import type { ResultRow } from './report.js';

// JUnit XML for CI test reporters: the run is a <testsuite>, each scenario a <testcase>. A failed scenario
// carries its unmet criteria in <failure>, an errored one its error_message in <error>, one that never
// finished (run canceled or timed out) is <skipped>.

// XML 1.0 forbids most control characters even when escaped; they are dropped.
// eslint-disable-next-line no-control-regex
const INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function xmlEscape(s: string): string {
  return s.replace(INVALID, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const attrs = (a: Record<string, string | number>) => Object.entries(a).map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`).join('');
const seconds = (ms: number | null) => ((ms ?? 0) / 1000).toFixed(3);

function testcase(row: ResultRow, classname: string): string {
  const open = `    <testcase${attrs({ classname, name: row.scenario_name, time: seconds(row.duration_ms) })}`;
  if (row.status === 'passed') return `${open}/>`;
  if (row.status === 'failed') {
    const lines = row.unmet_criteria.map((c) => `${c.decision}${c.required ? ' (required)' : ''}: ${c.criterion}\n  ${c.rationale}`);
    const message = row.unmet_criteria[0]?.criterion ?? row.grade_summary ?? 'failed';
    const body = [row.grade_summary ?? '', '', ...lines].join('\n').trim();
    return `${open}>\n      <failure${attrs({ message, type: 'criteria_not_met' })}>${xmlEscape(body)}</failure>\n    </testcase>`;
  }
  if (row.status === 'error') {
    const message = row.error_message ?? 'error';
    return `${open}>\n      <error${attrs({ message, type: message.split(':')[0] })}>${xmlEscape(message)}</error>\n    </testcase>`;
  }
  return `${open}>\n      <skipped${attrs({ message: `not finished (${row.status})` })}/>\n    </testcase>`;
}

export function junitXml(run: Run, rows: ResultRow[], suiteName: string): string {
  const failures = rows.filter((r) => r.status === 'failed').length;
  const errors = rows.filter((r) => r.status === 'error').length;
  const skipped = rows.length - failures - errors - rows.filter((r) => r.status === 'passed').length;
  const time = run.duration_seconds ?? 0;
  const classname = `rehearsal.${suiteName}`;
  const props = { test_run_id: run.test_run_id, run_id: run.id, status: run.status, agent: run.agent_name, pass_rate: run.pass_rate, test_mode: run.test_mode, max_turns: run.max_turns };
  const counts = { tests: rows.length, failures, errors, skipped, time: time.toFixed(3) };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: 'rehearsal', ...counts })}>`,
    `  <testsuite${attrs({ name: `${run.name} (${run.test_run_id})`, ...counts, timestamp: run.started_at })}>`,
    '    <properties>',
    ...Object.entries(props).map(([name, value]) => `      <property${attrs({ name, value })}/>`),
    '    </properties>',
    ...rows.map((r) => testcase(r, classname)),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
