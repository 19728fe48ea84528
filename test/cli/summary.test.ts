import { describe, expect, it } from 'vitest';
import type { Run } from '../../src/client/index.js';
import type { ResultRow } from '../../src/cli/report.js';
import { summaryMarkdown } from '../../src/cli/summary.js';

// `--summary <file.md>` (workflow §2): pass rate with its interval, the comparison, failed and flaky scenarios by
// name with the first unmet criterion's text, a link to the run on the dashboard.

const run = {
  id: '0193a5b0-0000-7000-8000-000000000001', test_run_id: 'TR-7', name: 'main · abc123', status: 'completed',
  pass_rate: 62.5, passed_count: 5, failed_count: 3, error_count: 1, total_scenarios: 9,
  stats: { pass_rate_ci: { low: 30.57, high: 86.32 } },
} as unknown as Run;

let n = 0;
const row = (scenario: string, status: string, unmet: string | null = null, error: string | null = null): ResultRow => ({
  id: `sr-${++n}`, scenario_id: `id-${scenario}`, scenario_name: scenario, status, error_message: error, grade_summary: null, score: null,
  unmet_criteria: unmet ? [{ criterion: unmet, decision: 'NOT_MET', required: false, max_points: 1, points_awarded: 0 }] : [],
} as unknown as ResultRow);

describe('summaryMarkdown', () => {
  const rows = [
    row('Books', 'passed'), row('Books', 'passed'), row('Books', 'passed'),
    row('Flaky | pipes', 'passed'), row('Flaky | pipes', 'failed', 'Confirms the date'), row('Flaky | pipes', 'passed'),
    row('Broken', 'failed', 'Says the price\nin euros'), row('Broken', 'failed', 'Other'), row('Broken', 'error', null, 'agent timed out'),
  ];
  const comparison = 'Compared with baseline b-1: REGRESSED (pass rate 80% → 62.5%, -17.5)\n  1 regressed · 0 improved\n  REGRESSED Broken: 3/3 → 0/3 passed, p = 0.050 (not significant)\n';
  const md = summaryMarkdown(run, rows, { serviceUrl: 'https://rehearsal.example.com/', verdict: 'FAILED: below', comparison });

  it('states the pass rate with its interval and the verdict', () => {
    expect(md).toContain('## Rehearsal: main · abc123 (TR-7)');
    expect(md).toContain('**FAILED: below**');
    expect(md).toContain('Pass rate **62.5%** (95% interval 30.6%–86.3%)');
  });

  it('shows the comparison as a line and a list', () => {
    expect(md).toContain('Compared with baseline b-1: REGRESSED (pass rate 80% → 62.5%, -17.5)\n\n- 1 regressed · 0 improved\n- REGRESSED Broken: 3/3 → 0/3 passed, p = 0.050 (not significant)\n');
  });

  it('names each failed or flaky scenario once with its first unmet criterion, escaped for a table', () => {
    expect(md).toContain('| Flaky \\| pipes | FLAKY (2/3 passed) | Confirms the date |');
    expect(md).toContain('| Broken | FAIL (0/3 passed) | Says the price in euros |');
    expect(md).not.toContain('| Books |');
    expect(md.match(/\| Broken \|/g)).toHaveLength(1);
  });

  it('links to the run on the dashboard at the service URL', () => {
    expect(md).toContain(`[Open TR-7 on the dashboard](https://rehearsal.example.com/runs/${run.id})`);
    expect(summaryMarkdown(run, [], { serviceUrl: null, verdict: 'PASSED', comparison: null })).not.toContain('dashboard');
  });

  it('a single attempt shows its verdict without counts; an errored one its error', () => {
    const one = summaryMarkdown(run, [row('Solo', 'error', null, 'provider: 401')], { serviceUrl: null, verdict: 'x', comparison: null });
    expect(one).toContain('| Solo | ERROR | provider: 401 |');
    expect(one).toContain('Comparison with a baseline: none for this run.');
  });
});
