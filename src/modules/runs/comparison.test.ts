import { describe, expect, it } from 'vitest';
import { compareRuns, type RunSide } from './comparison.js';
import type { Repetition } from './scenario-aggregates.js';

let seq = 0;
const rep = (scenario: string, status: string, over: Partial<Repetition> = {}): Repetition => ({
  runId: 'r', scenarioId: scenario, scenarioName: `S ${scenario}`, position: scenario.charCodeAt(0), repetition: ++seq, status,
  scenarioVersion: 'v1', fault: null, criteriaResults: [], testerModel: null, judgeModel: 'judge-a', judgePromptVersion: 'p1', ...over,
});
const reps = (scenario: string, passed: number, failed: number, over: Partial<Repetition> = {}) => [
  ...Array.from({ length: passed }, () => rep(scenario, 'passed', over)), ...Array.from({ length: failed }, () => rep(scenario, 'failed', over)),
];
const side = (id: string, r: Repetition[], over: Partial<RunSide> = {}): RunSide => ({
  id, status: 'completed', maxTurns: 4, repeats: 3, testSuiteId: 'suite', reps: r,
  passedCount: r.filter((x) => x.status === 'passed').length, failedCount: r.filter((x) => x.status === 'failed').length, ...over,
});

describe('compareRuns', () => {
  it('labels every kind of change and counts them', () => {
    const c = compareRuns(
      side('base', [...reps('a', 3, 0), ...reps('b', 1, 2), ...reps('c', 3, 0), ...reps('d', 3, 0), ...reps('e', 0, 0), rep('e', 'error'), ...reps('r', 3, 0)]),
      side('cur', [...reps('a', 3, 0), ...reps('b', 1, 2), ...reps('c', 2, 1), ...reps('d', 3, 0, { scenarioVersion: 'v2' }), ...reps('e', 1, 0), ...reps('n', 1, 0)]),
    );
    expect(c.scenarios.map((s) => [s.scenario_id, s.change])).toEqual([
      ['a', 'unchanged'], ['b', 'flaky'], ['c', 'regressed'], ['d', 'changed_template'], ['e', 'incomparable'], ['n', 'added'], ['r', 'removed'],
    ]);
    expect(c.counts).toEqual({ regressed: 1, improved: 0, unchanged: 1, flaky: 1, changed_template: 1, incomparable: 1, added: 1, removed: 1 });
    // 3/3 → 2/3: P(X ≤ 2) = 1 − P(X = 3) = 1 − C(3,3)·C(3,2) / C(6,5) = 1 − 3/6
    expect(c.scenarios[2].p_value).toBeCloseTo(0.5, 12);
    expect(c.scenarios[2].significant).toBe(false);
    expect(c.verdict).toBe('inconclusive');
    expect(c.scenarios.find((s) => s.scenario_id === 'r')!.current).toEqual({ attempts: 0, passed: 0, failed: 0, error: 0 });
    expect(c.comparability.warnings).toEqual(['template changed: S d', 'no repetition to compare: S e', 'scenario added: S n', 'scenario removed: S r']);
    expect(c.comparability.comparable).toBe(true);
  });

  it('counts an agent-fault error as a failed repetition, other errors not at all', () => {
    const base = side('base', reps('a', 3, 0));
    const agent = compareRuns(base, side('cur', [...reps('a', 3, 0), rep('a', 'error', { fault: 'agent' })]));
    // 3/3 → 3/4: P(X ≤ 3) = 1 − P(X = 4) = 1 − C(4,4)·C(3,2) / C(7,6) = 1 − 3/7
    expect(agent.scenarios[0]).toMatchObject({ change: 'regressed', current: { attempts: 4, passed: 3, failed: 0, error: 1 } });
    expect(agent.scenarios[0].p_value).toBeCloseTo(4 / 7, 12);
    const judge = compareRuns(base, side('cur', [...reps('a', 3, 0), rep('a', 'error', { fault: 'judge' })]));
    expect(judge.scenarios[0].change).toBe('unchanged');
  });

  it('a significant regression anywhere wins; the sign test catches a consistent lean', () => {
    const worse = (id: string) => [reps(id, 5, 0), reps(id, 0, 5)] as const;
    const c = compareRuns(
      side('base', [...worse('a')[0], ...reps('b', 0, 5)]),
      side('cur', [...worse('a')[1], ...reps('b', 5, 0)]),
    );
    // 5/5 → 0/5 and 0/5 → 5/5: both p = 1/252, Holm doubles the smaller: both significant; the regression wins
    expect(c.scenarios.map((s) => [s.change, s.significant])).toEqual([['regressed', true], ['improved', true]]);
    expect(c.verdict).toBe('regressed');

    // five scenarios each losing one of three: none significant alone, but P(X ≥ 5 | n = 5) = 1/32 < .05
    const many = ['a', 'b', 'c', 'd', 'e'];
    const lean = compareRuns(side('base', many.flatMap((s) => reps(s, 3, 0))), side('cur', many.flatMap((s) => reps(s, 2, 1))));
    expect(lean.scenarios.every((s) => s.change === 'regressed' && !s.significant)).toBe(true);
    expect(lean.verdict).toBe('regressed');
    // four of them: 1/16 is not enough
    const four = compareRuns(side('base', many.slice(0, 4).flatMap((s) => reps(s, 3, 0))), side('cur', many.slice(0, 4).flatMap((s) => reps(s, 2, 1))));
    expect(four.verdict).toBe('inconclusive');
    const improved = compareRuns(side('base', many.flatMap((s) => reps(s, 2, 1))), side('cur', many.flatMap((s) => reps(s, 3, 0))));
    expect(improved.verdict).toBe('improved');
  });

  it('is pending while a run is not final; unchanged when only added or removed scenarios differ', () => {
    expect(compareRuns(side('base', reps('a', 1, 0)), side('cur', reps('a', 0, 1), { status: 'running' })).verdict).toBe('pending');
    const c = compareRuns(side('base', reps('a', 1, 0)), side('cur', [...reps('a', 1, 0), ...reps('b', 0, 1)]));
    expect(c.verdict).toBe('unchanged');
    expect(c.pass_rate).toEqual({ baseline: 100, current: 50, delta: -50 });
    expect(compareRuns(side('base', [rep('a', 'error')]), side('cur', reps('a', 1, 0))).pass_rate).toEqual({ baseline: null, current: 100, delta: null });
  });

  it('takes the majority decision per criterion (a tie is UNSURE) only when the versions agree', () => {
    const crit = (...d: string[]) => d.map((decision, i) => ({ criterion: `C${i}`, decision }));
    const c = compareRuns(
      side('base', [rep('a', 'passed', { criteriaResults: crit('MET', 'MET') }), rep('a', 'failed', { criteriaResults: crit('NOT_MET', 'MET') })]),
      side('cur', [rep('a', 'failed', { criteriaResults: crit('NOT_MET', 'MET') }), rep('a', 'failed', { criteriaResults: crit('NOT_MET', 'PARTIAL') }), rep('a', 'error')]),
    );
    expect(c.scenarios[0].criteria).toEqual([
      { criterion_index: 0, criterion: 'C0', baseline: 'UNSURE', current: 'NOT_MET', change: 'changed' },
      { criterion_index: 1, criterion: 'C1', baseline: 'MET', current: 'UNSURE', change: 'changed' },
    ]);
    const edited = compareRuns(side('base', reps('a', 1, 0, { criteriaResults: crit('MET') })), side('cur', reps('a', 1, 0, { criteriaResults: crit('MET'), scenarioVersion: 'v2' })));
    expect(edited.scenarios[0].criteria).toEqual([]);
  });

  it('warns about everything that can move results besides the agent', () => {
    const c = compareRuns(
      side('base', reps('a', 1, 0), { maxTurns: 2, repeats: 1, testSuiteId: 's1' }),
      side('cur', reps('a', 1, 0, { judgeModel: 'judge-b', testerModel: 'tester-x', judgePromptVersion: 'p2' }), { maxTurns: 3, repeats: 3, testSuiteId: 's2' }),
    );
    expect(c.comparability).toEqual({
      comparable: false,
      warnings: ['tester model: none → tester-x', 'judge model: judge-a → judge-b', 'judge prompt version: p1 → p2', 'max_turns: 2 → 3', 'repeats: 1 → 3', 'suite: s1 → s2'],
    });
  });
});
