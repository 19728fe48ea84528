import type { TestContext } from './harness.js';
import type { CriterionResult, Decision } from '../src/engine/types.js';

/** Test fixtures: a run whose scenario runs are written as the engine would have left them. */
export type Crit = { decision: Decision; required?: boolean; check?: boolean };

export function criteriaResults(crits: Crit[]): CriterionResult[] {
  return crits.map((c, i) => ({
    criterion: `Criterion ${i}`, decision: c.decision, points_awarded: c.decision === 'MET' ? 1 : c.decision === 'PARTIAL' ? 0.5 : 0,
    max_points: 1, rationale: `judged ${c.decision}`, required: c.required ?? false, graded_by: c.check ? 'check' : 'judge', votes: [c.decision], rejected_quotes: [],
  }));
}

/** Creates a run of `n` scenarios (threshold 0.7, three criteria each) with the API; returns its id and scenario run ids. */
export async function createRunOf(t: TestContext, n: number, key?: string): Promise<{ runId: string; ids: string[] }> {
  const ok = async (method: string, url: string, body?: unknown) => {
    const res = await t.call(method, `/api/v1${url}`, { body, key });
    if (res.status >= 300) throw new Error(`${method} ${url} → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const tag = Math.random().toString(36).slice(2, 8);
  const agent = await ok('POST', '/agents', { provider: 'provider_4', name: `Agent ${tag}`, config: { base_url: 'http://127.0.0.1:9/v1', model: 'm' } });
  const scenarioIds: string[] = [];
  for (let i = 0; i < n; i++) {
    scenarioIds.push((await ok('POST', '/scenarios', {
      name: `Reviewed ${tag} ${i}`, script: ['Hello'], pass_threshold: 0.7,
      criteria: [{ criterion: 'Criterion 0', required: true }, { criterion: 'Criterion 1' }, { criterion: 'Criterion 2' }],
    })).id);
  }
  const suite = await ok('POST', '/test-suites', { name: `Suite ${tag}`, scenario_ids: scenarioIds });
  const run = await ok('POST', '/runs', { agent_id: agent.id, test_suite_id: suite.id });
  const ids = (await ok('GET', `/runs/${run.id}/results`)).results.map((r: { id: string }) => r.id);
  return { runId: run.id, ids };
}

export interface Final { status: 'passed' | 'failed' | 'error'; crits: Crit[]; summary?: string; error?: string | null; judgeModel?: string | null }

const FAULT = { passed: null, failed: 'agent', error: 'judge' } as const;

/** Writes final scenario runs and their run's counters, and completes the run (its finalizer never ran). */
export async function finish(t: TestContext, runId: string, rows: Array<[string, Final]>) {
  const count = { passed: 0, failed: 0, error: 0 };
  for (const [id, f] of rows) {
    count[f.status]++;
    await t.deps.db.executeSql(
      `update scenario_runs set status = $2, passed = $3, criteria_results = $4::jsonb, grade_summary = $5, error_message = $6, judge_model = $7,
              fault = $8, completed_at = now() where id = $1`,
      [id, f.status, f.status === 'error' ? null : f.status === 'passed', JSON.stringify(criteriaResults(f.crits)), f.summary ?? 'as graded',
        f.error ?? null, f.judgeModel === undefined ? 'judge-a' : f.judgeModel, FAULT[f.status]],
    );
  }
  await t.deps.db.executeSql(
    // failed scenario runs are the agent's fault; the errors here are the judge's
    `update runs set status = 'completed', passed_count = $2, failed_count = $3, error_count = $4, fault_agent = $3, fault_judge = $4, completed_at = now() where id = $1`,
    [runId, count.passed, count.failed, count.error],
  );
}
