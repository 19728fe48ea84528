import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Badge, ErrorNote } from '../components/ui';
import { useResource } from '../hooks';
import type { Run, RunScenarios, ScenarioResult } from '../types';

const DOT: Record<string, string> = { passed: '●', failed: '○', error: '×' };
const DOT_WORD: Record<string, string> = { passed: 'passed', failed: 'failed', error: 'error' };
const VERDICT_LABEL: Record<string, string> = { pass: 'pass', fail: 'broken', flaky: 'flaky', error: 'error', pending: 'pending' };

/** Each scenario's attempts as dots (one per repetition, linking to it), its verdict and its Wilson interval. */
export function RunRepeats({ run, results }: { run: Run; results: ScenarioResult[] }) {
  const agg = useResource<RunScenarios>(`/runs/${run.id}/scenarios?limit=500`, () => (run.status === 'completed' || run.status === 'failed' || run.status === 'canceled' ? null : 2500));
  if (run.repeats <= 1) return null;
  return (
    <section aria-labelledby="repeats-title">
      <h2 id="repeats-title">Attempts per scenario ({run.repeats} each)</h2>
      <p className="muted">
        ● passed · ○ failed · × error. {run.stats.pass_all_count} of {run.scenario_count} scenarios passed every attempt; {run.stats.flaky_count} flaky.
        {run.stats.pass_rate_ci && <> The run's pass rate lies in {run.stats.pass_rate_ci.low}–{run.stats.pass_rate_ci.high}% (95%, repetitions of a scenario counted as correlated).</>}
      </p>
      <ErrorNote error={agg.error} />
      {agg.data && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Attempts per scenario">
          <table>
            <thead><tr><th scope="col">Scenario</th><th scope="col">Attempts</th><th scope="col">Verdict</th><th scope="col">Pass rate</th><th scope="col">95% interval</th></tr></thead>
            <tbody>
              {agg.data.scenarios.map((a) => (
                <tr key={a.scenario_id}>
                  <td>{a.scenario_name}</td>
                  <td className="dots">
                    {results.filter((r) => r.scenario_id === a.scenario_id).map((r) => (
                      <Link key={r.id} to={`/scenario-runs/${r.id}`} title={`attempt ${r.repetition}: ${DOT_WORD[r.status] ?? 'not finished'}`}
                        aria-label={`attempt ${r.repetition}: ${DOT_WORD[r.status] ?? 'not finished'}`}>{DOT[r.status] ?? '·'}</Link>
                    ))}
                  </td>
                  <td><Badge value={a.verdict === 'pass' ? 'passed' : a.verdict === 'fail' ? 'failed' : a.verdict} label={VERDICT_LABEL[a.verdict]} /></td>
                  <td>{a.pass_rate === null ? '—' : `${a.pass_rate}%`}</td>
                  <td>{a.pass_rate_ci ? `${a.pass_rate_ci.low}–${a.pass_rate_ci.high}%` : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** "Compare with…": the baseline by default, or any run id (UUID or TR-n). */
export function CompareWith({ run }: { run: Run }) {
  const [against, setAgainst] = useState('');
  const navigate = useNavigate();
  const go = (ref: string) => navigate(`/runs/${run.id}/compare${ref ? `?against=${encodeURIComponent(ref)}` : ''}`);
  return (
    <form className="inline-form" aria-label="Compare with another run" onSubmit={(e) => { e.preventDefault(); go(against.trim()); }}>
      {run.baseline_run_id && <button type="button" className="btn" onClick={() => go('')}>Compare with baseline</button>}
      <label htmlFor="compare-against">Compare with…</label>
      <input id="compare-against" placeholder="TR-12 or a run id" value={against} onChange={(e) => setAgainst(e.target.value)} />
      <button type="submit" className="btn" disabled={!against.trim()}>Compare</button>
    </form>
  );
}
