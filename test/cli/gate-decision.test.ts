import { describe, expect, it } from 'vitest';
import { decideGate, type GateRow, type GateRun } from '../../src/cli/gate-decision.js';

// The exit-code precedence of `rehearsal run`, case by case: 3 (usage; decided before a run exists),
// 2 canceled or timed out, 1 the agent's own outcomes already below --min-pass-rate, 2 run failed or
// coverage below --min-coverage, 1 strict pass rate below --min-pass-rate, 0 otherwise.

const rows = (spec: Record<string, number>): GateRow[] => Object.entries(spec).flatMap(([k, n]) => {
  const [status, fault] = k.split(':');
  return Array.from({ length: n }, () => ({ status: status as GateRow['status'], fault: fault ?? null }));
});

function runOf(status: GateRun['status'], r: GateRow[], fields: Partial<GateRun> = {}): GateRun {
  return {
    status, test_run_id: 'TR-9', error_message: null, total_scenarios: r.length,
    passed_count: r.filter((x) => x.status === 'passed').length, failed_count: r.filter((x) => x.status === 'failed').length, ...fields,
  };
}

interface Case {
  name: string;
  status: GateRun['status'];
  results: Record<string, number>;
  min: number;
  cov?: number;
  timedOut?: boolean;
  exit: number;
  reason: string;
  strict: number | null;
  coverage: number;
  message?: RegExp;
}

const CASES: Case[] = [
  { name: 'a clean run', status: 'completed', results: { passed: 20 }, min: 80, exit: 0, reason: 'met', strict: 100, coverage: 100 },
  { name: '--timeout passed, whatever was graded', status: 'canceled', results: { passed: 5, pending: 15 }, min: 0, timedOut: true, exit: 2, reason: 'timed_out', strict: 100, coverage: 25 },
  { name: 'canceled, even with the agent far below the minimum', status: 'canceled', results: { 'error:agent': 10, 'error:canceled': 10 }, min: 80, exit: 2, reason: 'run_canceled', strict: 0, coverage: 50 },
  {
    name: '19 agent timeouts + 1 pass: the agent caused it, exit 1', status: 'completed', results: { passed: 1, 'error:agent': 19 }, min: 80, exit: 1, reason: 'below_min_pass_rate', strict: 5, coverage: 100,
    message: /strict pass rate 5%, at most 5% even if every uncovered scenario run had passed/,
  },
  { name: 'a run failed because every scenario errored on the agent side is a 1', status: 'failed', results: { 'error:agent': 20 }, min: 50, exit: 1, reason: 'below_min_pass_rate', strict: 0, coverage: 100 },
  { name: 'the same with no minimum pass rate is a failed run', status: 'failed', results: { 'error:agent': 20 }, min: 0, exit: 2, reason: 'run_failed', strict: 0, coverage: 100 },
  {
    name: '19 judge errors + 1 pass: not covered, exit 2, counted by fault', status: 'completed', results: { passed: 1, 'error:judge': 19 }, min: 80, exit: 2, reason: 'below_min_coverage', strict: 100, coverage: 5,
    message: /^FAILED: coverage 5% is below the minimum of 90%: 19 of 20 scenario runs not covered \(judge 19\)$/,
  },
  { name: 'the same with --min-coverage 0', status: 'completed', results: { passed: 1, 'error:judge': 19 }, min: 80, cov: 0, exit: 0, reason: 'met', strict: 100, coverage: 5 },
  {
    name: 'a run failed on the provider side', status: 'failed', results: { 'error:provider': 2 }, min: 0, exit: 2, reason: 'run_failed', strict: null, coverage: 0,
    message: /^FAILED: run TR-9 ended failed; 2 of 2 scenario runs not covered \(provider 2\)$/,
  },
  { name: 'run failed wins over low coverage', status: 'failed', results: { passed: 1, 'error:internal': 3 }, min: 0, exit: 2, reason: 'run_failed', strict: 100, coverage: 25 },
  {
    name: 'uncovered runs could lift it, covered ones do not: exit 1 after coverage', status: 'completed', results: { passed: 17, failed: 2, 'error:judge': 1 }, min: 90, exit: 1, reason: 'below_min_pass_rate', strict: 89.47, coverage: 95,
    message: /^FAILED: strict pass rate 89\.47% is below the minimum of 90%$/,
  },
  { name: 'already below counting the uncovered as passed: exit 1 before coverage', status: 'completed', results: { passed: 16, failed: 3, 'error:judge': 1 }, min: 90, exit: 1, reason: 'below_min_pass_rate', strict: 84.21, coverage: 95 },
  { name: 'below the minimum on both counts: the agent\'s failures come first', status: 'completed', results: { passed: 1, failed: 9, 'error:tester': 10 }, min: 80, exit: 1, reason: 'below_min_pass_rate', strict: 10, coverage: 50 },
  { name: 'exactly at both minimums', status: 'completed', results: { passed: 72, failed: 18, 'error:judge': 10 }, min: 80, exit: 0, reason: 'met', strict: 80, coverage: 90 },
  { name: 'nothing covered, no minimums: strict is null and counts as 0', status: 'completed', results: { 'error:judge': 3 }, min: 0, cov: 0, exit: 0, reason: 'met', strict: null, coverage: 0 },
  { name: 'nothing covered, a minimum pass rate: null counts as 0', status: 'completed', results: { 'error:judge': 3 }, min: 50, cov: 0, exit: 1, reason: 'below_min_pass_rate', strict: null, coverage: 0 },
  { name: 'errors without a known fault are not the agent\'s', status: 'completed', results: { passed: 8, error: 2 }, min: 90, exit: 2, reason: 'below_min_coverage', strict: 100, coverage: 80 },
];

describe('the gate decision', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const r = rows(c.results);
    const d = decideGate(runOf(c.status, r), r, { minPassRate: c.min, minCoverage: c.cov ?? 90, timedOut: c.timedOut ?? false });
    expect({ exit: d.exit_code, reason: d.reason, strict: d.strict_pass_rate, coverage: d.coverage }).toEqual({ exit: c.exit, reason: c.reason, strict: c.strict, coverage: c.coverage });
    expect(d.passed).toBe(c.exit === 0);
    if (c.message) expect(d.message).toMatch(c.message);
  });

  it('reads agent_error_count, strict_pass_rate and coverage from the run when the service sends them', () => {
    const r = rows({ passed: 1, error: 19 }); // results without fault: only the run knows whose errors these were
    const d = decideGate(runOf('completed', r, { agent_error_count: 19, strict_pass_rate: 5, coverage: 100 }), r, { minPassRate: 80, minCoverage: 90, timedOut: false });
    expect(d).toMatchObject({ exit_code: 1, reason: 'below_min_pass_rate', strict_pass_rate: 5, coverage: 100, agent_error_count: 19 });
    const none = decideGate(runOf('completed', rows({ error: 2 }), { agent_error_count: 0, strict_pass_rate: null, coverage: 0 }), rows({ error: 2 }), { minPassRate: 0, minCoverage: 0, timedOut: false });
    expect(none).toMatchObject({ exit_code: 0, strict_pass_rate: null });
  });

  it('counts unfinished scenario runs as not covered', () => {
    const r = rows({ passed: 2, running: 1, pending: 1 });
    const d = decideGate(runOf('canceled', r), r, { minPassRate: 0, minCoverage: 90, timedOut: false });
    expect(d.uncovered).toEqual({ 'not finished': 2 });
    expect(d.message).toBe('FAILED: run TR-9 was canceled; 2 of 4 scenario runs not covered (not finished 2)');
  });
});
