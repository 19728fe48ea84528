import { Link, useParams, useSearchParams } from 'react-router-dom';
import { post, qs } from '../api';
import { LatencyChart } from '../components/charts';
import { FAULT_FILTERS, FaultTag, notAgentSentence } from '../components/faults';
import { Badge, ConfirmButton, Empty, ErrorNote, Loading, PageHeader, Pagination, Stat } from '../components/ui';
import { fmtDateTime, fmtDuration, fmtMs, fmtPct, fmtUsd } from '../format';
import { useAction, useResource, useTitle } from '../hooks';
import { useLookups } from '../lookups';
import { isFinal, type Run, type RunResults } from '../types';
import { CompareWith, RunRepeats } from './RunRepeats';

const FILTERS = [['', 'All'], ['passed', 'Passed'], ['failed', 'Failed'], ['error', 'Error'], ['pending', 'Pending']] as const;
const POLL_MS = 2500;
const LIMIT = 100;

export function RunPage() {
  const { id = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
  const fault = params.get('fault') ?? '';
  const offset = Number(params.get('offset') ?? 0) || 0;
  const lookups = useLookups();
  const poll = (d: Run) => (isFinal(d.status) ? null : POLL_MS);
  // everything (for the summary and the chart), and the filtered page for the table
  const all = useResource<RunResults>(`/runs/${id}/results?limit=500`, poll);
  const filtered = Boolean(status || fault || offset);
  const table = useResource<RunResults>(filtered ? `/runs/${id}/results${qs({ status, fault, limit: LIMIT, offset })}` : null, poll);
  const cancel = useAction(() => post<Run>(`/runs/${id}/cancel`));
  const run = all.data;
  useTitle(run ? `${run.test_run_id} ${run.name}` : 'Run');
  const page = filtered ? table.data : all.data && { ...all.data, results: all.data.results.slice(0, LIMIT) };

  if (all.error && !run) return <><PageHeader title="Run" /><ErrorNote error={all.error} /><p><Link to="/runs">Back to runs</Link></p></>;
  if (!run) return <Loading what="Loading the run" />;
  const done = run.passed_count + run.failed_count + run.error_count;
  const m = run.metrics;
  const setFilter = (s: string, f = fault) => setParams({ ...(s ? { status: s } : {}), ...(f ? { fault: f } : {}) });

  return (
    <>
      <p className="crumbs"><Link to="/runs">Runs</Link> / <span className="mono">{run.test_run_id}</span></p>
      <PageHeader
        title={<>{run.name} <Badge value={run.status} /></>}
        subtitle={<>Agent {lookups.agentName(run.agent_id) ? <Link to={`/agents/${run.agent_id}`}>{run.agent_name}</Link> : run.agent_name}
          {' · '}suite {lookups.suiteName(run.test_suite_id) ?? '—'} · {run.test_mode} mode · up to {run.max_turns} turns
          {' · '}started <time dateTime={run.started_at}>{fmtDateTime(run.started_at)}</time></>}
        actions={!isFinal(run.status) && (
          <ConfirmButton label="Cancel run" question="Cancel this run? Conversations in flight are stopped." onConfirm={async () => { await cancel.run(); all.reload(); }} />
        )}
      />
      <ErrorNote error={cancel.error} title="Cancel failed" />
      {run.error_message && <div className="error-note" role="alert"><strong>The run {run.status}: </strong>{run.error_message}</div>}
      {run.warnings?.length > 0 && (
        <div className="card warnings" aria-label="Warnings">
          <strong>Warnings:</strong>
          <ul>{run.warnings.map((w) => <li key={w}>{w}</li>)}</ul>
        </div>
      )}
      {!isFinal(run.status) && (
        <section className="card" aria-labelledby="progress-title">
          <h2 id="progress-title">In progress</h2>
          <progress max={run.total_scenarios} value={done} aria-labelledby="progress-title" aria-describedby="progress-text" />
          <p id="progress-text" aria-live="polite">{done} of {run.total_scenarios} scenarios finished · {run.status}. This page refreshes every few seconds.</p>
        </section>
      )}
      <section aria-labelledby="summary-title">
        <h2 id="summary-title">Summary</h2>
        <dl className="stats">
          <Stat label="Pass rate" value={run.passed_count + run.failed_count > 0 ? fmtPct(run.pass_rate) : '—'} hint="passed / (passed + failed); errors are not agent failures" />
          <Stat label="Strict pass rate" value={run.strict_pass_rate == null ? '—' : fmtPct(run.strict_pass_rate)} hint="passed / (passed + failed + the agent's own errors: timeouts, hang-ups, no reply)" />
          <Stat label="Coverage" value={fmtPct(run.coverage)} hint="share of scenario runs that say something about the agent: passed, failed, or errored by the agent's doing" />
          <Stat label="Agent errors" value={run.agent_error_count} hint="errors of the agent's own making" />
          <Stat label="95% interval" value={run.stats.pass_rate_ci ? `${run.stats.pass_rate_ci.low}–${run.stats.pass_rate_ci.high}%` : '—'} hint="Wilson on the effective sample size: a scenario's repetitions count as correlated" />
          <Stat label="Passed" value={run.passed_count} />
          <Stat label="Failed" value={run.failed_count} />
          <Stat label="Errors" value={run.error_count} />
          <Stat label="Not finished" value={run.total_scenarios - done} />
          <Stat label="Duration" value={isFinal(run.status) ? fmtDuration(run.duration_seconds) : 'running'} />
          <Stat label="First response" value={fmtMs(m?.time_to_first_response_ms)} hint="average time to the agent's first reply" />
          <Stat label="Reply latency p50" value={fmtMs(m?.p50_turn_duration_ms)} />
          <Stat label="Reply latency p95" value={fmtMs(m?.p95_turn_duration_ms)} />
          <Stat label="Timing uncertainty" value={run.timing_uncertainty_ms == null ? '—' : `up to ${fmtMs(run.timing_uncertainty_ms)}`} hint="how far Rehearsal's own load could have inflated a reply latency of this run (its worst event-loop lag while conversations were in flight)" />
          <Stat label="Average turns" value={m?.turn_count == null ? '—' : m.turn_count.toFixed(1)} />
          <Stat label="Total cost" value={fmtUsd(m?.total_cost_usd)} hint="as reported by the provider; — when it reports none" />
          <Stat label="Cost per scenario" value={fmtUsd(m?.cost_usd)} />
        </dl>
      </section>
      <p className="faults-sentence" aria-live="polite">{notAgentSentence(run)}</p>
      <CompareWith run={run} />
      <RunRepeats run={run} results={all.data?.results ?? []} />
      <section aria-labelledby="latency-title">
        <h2 id="latency-title">Latency</h2>
        <LatencyChart results={all.data?.results ?? []} />
      </section>
      <section aria-labelledby="scenarios-title">
        <h2 id="scenarios-title">Scenarios</h2>
        <div className="segmented" role="group" aria-label="Show scenarios">
          {FILTERS.map(([value, label]) => (
            <button key={value} type="button" className="btn" aria-pressed={status === value} onClick={() => setFilter(value)}>{label}</button>
          ))}
        </div>
        <label className="inline-filter">Fault{' '}
          <select value={fault} onChange={(e) => setFilter(status, e.target.value)}>
            {FAULT_FILTERS.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
          </select>
        </label>
        <ErrorNote error={table.error} />
        {!page && !table.error && <Loading what="Loading scenarios" />}
        {page && page.results.length === 0 && <Empty title="No scenarios with this status or fault" />}
        {page && page.results.length > 0 && (
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Scenario results">
            <table>
              <thead><tr><th scope="col">Scenario</th><th scope="col">Status</th><th scope="col">Grade</th><th scope="col">Avg reply</th><th scope="col">Duration</th></tr></thead>
              <tbody>
                {page.results.map((r) => (
                  <tr key={r.id}>
                    <td><Link to={`/scenario-runs/${r.id}`}>{r.scenario_name}</Link>{run.repeats > 1 && <span className="muted"> · attempt {r.repetition}</span>}</td>
                    <td><Badge value={r.status} /> <FaultTag fault={r.fault} /></td>
                    <td className="grade">{r.error_message ? <span className="bad-text">{r.error_message}</span> : r.grade_summary ?? '—'}</td>
                    <td>{fmtMs(r.metrics?.average_turn_duration_ms)}</td>
                    <td>{r.duration_ms == null ? '—' : fmtMs(r.duration_ms)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {page && <Pagination label="Scenario results" total={page.results_total} limit={LIMIT} offset={offset}
          onChange={(o) => setParams({ ...(status ? { status } : {}), ...(fault ? { fault } : {}), offset: String(o) })} />}
      </section>
    </>
  );
}
