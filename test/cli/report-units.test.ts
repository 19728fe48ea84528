import { describe, expect, it } from 'vitest';
import { junitXml } from '../../src/cli/junit.js';
import { createProgress } from '../../src/cli/progress.js';
import { renderTable, type ResultRow } from '../../src/cli/report.js';
import { parseRetryAfter, type Run } from '../../src/client/index.js';
import { captureIo } from './capture.js';
import { find, parseXml } from './xml.js';

const run = (over: Partial<Run> = {}): Run => ({
  id: '0190f0f0-0000-7000-8000-000000000001', test_run_id: 'TR-7', name: 'Suite <&> "quoted"', status: 'canceled', agent_id: '0190f0f0-0000-7000-8000-000000000002',
  agent_name: "O'Brien & Co", pass_rate: 50, passed_count: 1, failed_count: 1, error_count: 1, reviewed_count: 0, total_scenarios: 4, started_at: '2026-11-21T15:07:08.346Z',
  completed_at: '2026-11-21T15:07:18.346Z', duration_seconds: 10, test_suite_id: null, test_mode: 'demo', max_turns: 4, created_at: '2026-11-21T15:07:08.346Z',
  error_message: null, metrics: null, warnings: [], timing_uncertainty_ms: 3, faults: { agent: 1, tester: 0, judge: 0, provider: 0, internal: 0, canceled: 1 }, retried_count: 0,
  agent_error_count: 0, strict_pass_rate: 50, coverage: 50, repeats: 1, scenario_count: 4, baseline_run_id: null,
  stats: { flaky_count: 0, pass_all_count: 1, pass_rate_ci: { low: 9.45, high: 90.55 } }, ...over,
});
const row = (status: ResultRow['status'], over: Partial<ResultRow> = {}): ResultRow => ({
  id: crypto.randomUUID(), scenario_id: crypto.randomUUID(), scenario_name: `Scenario ${status}`, status, passed: status === 'passed', grade_summary: null,
  error_message: null, duration_ms: 1500, metrics: null, repetition: 1, score: null, unmet_criteria: [], fault: null, end_reason: null, agent_turns: null, decided_share: null, ...over,
});

describe('JUnit XML', () => {
  it('escapes markup and drops characters XML cannot carry; every outcome maps to one element', () => {
    const rows = [
      row('passed', { scenario_name: 'Says <hello> & "bye"' }),
      row('failed', { grade_summary: '1 of 2 criteria met', unmet_criteria: [{ criterion: 'Never says ]]> or \u0007', decision: 'NOT_MET', points_awarded: 0, max_points: 1, rationale: 'quoted "x" & <y>', required: true, judge_decision: 'NOT_MET', review: null }] }),
      row('error', { error_message: 'provider: 500 <html>' }),
      row('pending'),
    ];
    const xml = junitXml(run(), rows, 'Default');
    const doc = parseXml(xml);
    expect(doc.attrs).toMatchObject({ tests: '4', failures: '1', errors: '1', skipped: '1' });
    const cases = find(doc, 'testcase');
    expect(cases.map((c) => c.attrs.name)).toEqual(['Says <hello> & "bye"', 'Scenario failed', 'Scenario error', 'Scenario pending']);
    expect(cases[0].attrs.time).toBe('1.500');
    expect(find(doc, 'failure')[0].attrs.message).toBe('Never says ]]> or ');
    expect(find(doc, 'failure')[0].text).toContain('NOT_MET (required): Never says ]]> or \n  quoted "x" & <y>');
    expect(find(doc, 'error')[0].attrs).toEqual({ message: 'provider: 500 <html>', type: 'provider' });
    expect(find(doc, 'skipped')[0].attrs.message).toBe('not finished (pending)');
    expect(find(doc, 'testsuite')[0].attrs.name).toBe('Suite <&> "quoted" (TR-7)');
  });

  it("writes the agent's own errors as failures of type agent, every other error as <error>", () => {
    const rows = [
      row('error', { scenario_name: 'Timed out', fault: 'agent', error_message: 'agent: no reply to 3 caller messages' }),
      row('error', { scenario_name: 'Judge broke', fault: 'judge', error_message: 'judge: grading inconclusive: 2 of 5 points undecided' }),
      row('error', { scenario_name: 'Unknown', error_message: 'provider: 503' }),
    ];
    const doc = parseXml(junitXml(run(), rows, 'Default'));
    expect(doc.attrs).toMatchObject({ tests: '3', failures: '1', errors: '2', skipped: '0' });
    expect(find(doc, 'failure').map((f) => f.attrs)).toEqual([{ message: 'agent: no reply to 3 caller messages', type: 'agent' }]);
    expect(find(doc, 'error').map((e) => e.attrs.type)).toEqual(['judge', 'provider']);
  });
});

describe('progress and table', () => {
  it('plain progress prints a line only when something changed, at most every minIntervalMs, and always the final state', () => {
    const io = captureIo();
    let now = 0;
    const p = createProgress(io, { minIntervalMs: 1000, now: () => now });
    p.update(run({ status: 'running', passed_count: 0, failed_count: 0, error_count: 0 }));
    now = 500;
    p.update(run({ status: 'running', passed_count: 1, failed_count: 0, error_count: 0 })); // too soon
    now = 1600;
    p.update(run({ status: 'running', passed_count: 1, failed_count: 0, error_count: 0 }));
    p.update(run({ status: 'running', passed_count: 1, failed_count: 0, error_count: 0 })); // unchanged
    p.finish(run({ status: 'completed', passed_count: 3, failed_count: 1, error_count: 0 }));
    expect(io.stderr.split('\n').filter(Boolean)).toEqual([
      'TR-7 running: 0/4 done · 0 passed · 0 failed · 0 errors',
      'TR-7 running: 1/4 done · 1 passed · 0 failed · 0 errors',
      'TR-7 completed: 4/4 done · 3 passed · 1 failed · 0 errors',
    ]);
  });

  it('fits the table to the terminal width', () => {
    const long = row('failed', { scenario_name: 'A very long scenario name that goes on and on and on', score: 0.5, unmet_criteria: [{ criterion: 'x'.repeat(300), decision: 'PARTIAL', points_awarded: 0.5, max_points: 1, rationale: '', judge_decision: 'PARTIAL', review: null }] });
    const table = renderTable([long, row('error', { error_message: 'timeout: no reply within 120000 ms' })], 80);
    for (const line of table.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(table).toMatch(/FAIL\s+0\.50\s+\(partial\) x+…/);
    expect(table).toMatch(/ERROR\s+-\s+timeout: no reply/);
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    expect(parseRetryAfter('10')).toBe(10_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', Date.parse('2026-01-01T00:00:00Z'))).toBe(30_000);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(null)).toBeNull();
  });
});
