import { fisherOneSided, holm, signTest } from '../../engine/stats.js';
import { FINAL_RUN_STATUSES } from './run-status.js';
import { countStatuses, groupByScenario, type Repetition, type ScenarioGroup } from './scenario-aggregates.js';

export const CHANGES = ['regressed', 'improved', 'unchanged', 'flaky', 'changed_template', 'incomparable', 'added', 'removed'] as const;
export type Change = (typeof CHANGES)[number];
export type ComparisonVerdict = 'pending' | 'regressed' | 'improved' | 'inconclusive' | 'unchanged';

/** What the comparison needs of a run besides its repetitions. */
export interface RunSide {
  id: string;
  status: string;
  maxTurns: number;
  repeats: number;
  testSuiteId: string | null;
  passedCount: number;
  failedCount: number;
  reps: Repetition[];
}

const ALPHA = 0.05;
const round2 = (x: number) => Math.round(x * 100) / 100;
const rate = (passed: number, failed: number) => (passed + failed === 0 ? null : round2((100 * passed) / (passed + failed)));

/** A side's counts, and its pass proportion: an error the agent caused is a failed repetition; other errors are left out. */
function side(g: ScenarioGroup | undefined) {
  const reps = g?.reps ?? [];
  const { attempts, passed, failed, error } = countStatuses(reps);
  const agentErrors = reps.filter((r) => r.status === 'error' && r.fault === 'agent').length;
  return { counts: { attempts, passed, failed, error }, passed, trials: passed + failed + agentErrors };
}

/** The majority decision per criterion over a side's graded repetitions; a tie is UNSURE. */
function majorities(g: ScenarioGroup | undefined): { text: string; decision: string }[] {
  const graded = (g?.reps ?? []).filter((r) => r.status === 'passed' || r.status === 'failed');
  const n = Math.max(0, ...graded.map((r) => r.criteriaResults.length));
  return Array.from({ length: n }, (_, i) => {
    const votes = new Map<string, number>();
    for (const r of graded) {
      const d = r.criteriaResults[i]?.decision;
      if (d) votes.set(d, (votes.get(d) ?? 0) + 1);
    }
    const ranked = [...votes].sort((a, b) => b[1] - a[1]);
    const decision = ranked.length === 0 ? 'UNSURE' : ranked.length > 1 && ranked[0][1] === ranked[1][1] ? 'UNSURE' : ranked[0][0];
    return { text: graded.find((r) => r.criteriaResults[i])?.criteriaResults[i].criterion ?? '', decision };
  });
}

const versionOf = (g: ScenarioGroup | undefined) => g?.reps.find((r) => r.scenarioVersion)?.scenarioVersion ?? null;

function distinct(reps: Repetition[], pick: (r: Repetition) => string | null): string {
  const values = [...new Set(reps.map(pick).filter((v): v is string => v !== null))].sort();
  return values.length === 0 ? 'none' : values.join(', ');
}

/** Compares `current` with `baseline`, scenario by scenario (matched by scenario_id). */
export function compareRuns(baseline: RunSide, current: RunSide) {
  const before = groupByScenario(baseline.reps);
  const after = groupByScenario(current.reps);
  const beforeById = new Map(before.map((g) => [g.scenarioId, g]));
  const afterById = new Map(after.map((g) => [g.scenarioId, g]));
  const order = [...after, ...before.filter((g) => !afterById.has(g.scenarioId))];

  const scenarios = order.map((g) => {
    const b = beforeById.get(g.scenarioId);
    const c = afterById.get(g.scenarioId);
    const sb = side(b);
    const sc = side(c);
    const vb = versionOf(b);
    const vc = versionOf(c);
    let change: Change;
    let pValue: number | null = null;
    if (!b) change = 'added';
    else if (!c) change = 'removed';
    else if (vb !== null && vc !== null && vb !== vc) change = 'changed_template';
    else if (sb.trials === 0 || sc.trials === 0) change = 'incomparable';
    else {
      // compare passed/trials on both sides without floating point: a/n < b/m ⇔ a·m < b·n
      const lhs = sc.passed * sb.trials;
      const rhs = sb.passed * sc.trials;
      const mixed = (s: typeof sb) => s.passed > 0 && s.passed < s.trials;
      if (lhs < rhs) change = 'regressed';
      else if (lhs > rhs) change = 'improved';
      else change = mixed(sb) || mixed(sc) ? 'flaky' : 'unchanged';
      if (change === 'regressed' || change === 'improved') {
        pValue = fisherOneSided(sb.passed, sb.trials, sc.passed, sc.trials, change === 'regressed' ? 'lower' : 'higher');
      }
    }
    const sameVersion = b && c && vb === vc;
    const mb = sameVersion ? majorities(b) : [];
    const mc = sameVersion ? majorities(c) : [];
    const criteria = sameVersion ? Array.from({ length: Math.max(mb.length, mc.length) }, (_, i) => {
      const bd = mb[i] && sb.counts.passed + sb.counts.failed > 0 ? mb[i].decision : null;
      const cd = mc[i] && sc.counts.passed + sc.counts.failed > 0 ? mc[i].decision : null;
      return { criterion_index: i, criterion: mc[i]?.text || mb[i]?.text || '', baseline: bd, current: cd, change: bd === cd ? 'same' : 'changed' };
    }) : [];
    return {
      scenario_id: g.scenarioId, scenario_name: (c ?? g).scenarioName, change, significant: false, p_value: pValue,
      baseline: sb.counts, current: sc.counts, criteria,
    };
  });

  const tested = scenarios.filter((s) => s.p_value !== null);
  holm(tested.map((s) => s.p_value!)).forEach((adj, i) => { tested[i].significant = adj < ALPHA; });

  const counts = Object.fromEntries(CHANGES.map((k) => [k, 0])) as Record<Change, number>;
  for (const s of scenarios) counts[s.change]++;
  const final = (r: RunSide) => (FINAL_RUN_STATUSES as readonly string[]).includes(r.status);
  const r = counts.regressed;
  const i = counts.improved;
  let verdict: ComparisonVerdict;
  if (!final(baseline) || !final(current)) verdict = 'pending';
  else if (scenarios.some((s) => s.change === 'regressed' && s.significant) || signTest(r, r + i) < ALPHA) verdict = 'regressed';
  else if (scenarios.some((s) => s.change === 'improved' && s.significant) || signTest(i, r + i) < ALPHA) verdict = 'improved';
  else if (r + i + counts.flaky > 0) verdict = 'inconclusive';
  else verdict = 'unchanged';

  const pb = rate(baseline.passedCount, baseline.failedCount);
  const pc = rate(current.passedCount, current.failedCount);
  return {
    run_id: current.id, baseline_run_id: baseline.id, verdict,
    pass_rate: { baseline: pb, current: pc, delta: pb === null || pc === null ? null : round2(pc - pb) },
    counts, scenarios, comparability: comparability(baseline, current, scenarios),
  };
}

function comparability(baseline: RunSide, current: RunSide, scenarios: { scenario_name: string; change: Change }[]) {
  const warnings: string[] = [];
  const differs = (label: string, pick: (r: Repetition) => string | null) => {
    const b = distinct(baseline.reps, pick);
    const c = distinct(current.reps, pick);
    if (b !== c) warnings.push(`${label}: ${b} → ${c}`);
    return b !== c;
  };
  const tester = differs('tester model', (r) => r.testerModel);
  const judge = differs('judge model', (r) => r.judgeModel);
  differs('judge prompt version', (r) => r.judgePromptVersion);
  if (baseline.maxTurns !== current.maxTurns) warnings.push(`max_turns: ${baseline.maxTurns} → ${current.maxTurns}`);
  if (baseline.repeats !== current.repeats) warnings.push(`repeats: ${baseline.repeats} → ${current.repeats}`);
  if (baseline.testSuiteId !== current.testSuiteId) warnings.push(`suite: ${baseline.testSuiteId ?? 'none'} → ${current.testSuiteId ?? 'none'}`);
  const said: Partial<Record<Change, string>> = {
    changed_template: 'template changed', added: 'scenario added', removed: 'scenario removed', incomparable: 'no repetition to compare',
  };
  for (const s of scenarios) if (said[s.change]) warnings.push(`${said[s.change]}: ${s.scenario_name}`);
  return { comparable: !tester && !judge, warnings };
}

export type Comparison = ReturnType<typeof compareRuns>;
