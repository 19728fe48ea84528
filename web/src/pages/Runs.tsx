import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { post, qs } from '../api';
import { PassRateChart } from '../components/charts';
import { Badge, ConfirmButton, Empty, ErrorNote, Field, Loading, PageHeader, Pagination } from '../components/ui';
import { fmtDateTime, fmtDuration, fmtPct } from '../format';
import { useAction, useResource, useTitle } from '../hooks';
import { useLookups } from '../lookups';
import { isFinal, type Run } from '../types';
import { StartRunForm } from './StartRun';

const STATUSES = ['pending', 'running', 'grading', 'completed', 'failed', 'canceled'];
const LIMIT = 20;
/** Runs in flight are refreshed every 3 s (the API recommends polling no faster than every few seconds). */
const POLL_MS = 3000;

export function Runs() {
  useTitle('Runs');
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
  const agentId = params.get('agent_id') ?? '';
  const suiteId = params.get('test_suite_id') ?? '';
  const offset = Number(params.get('offset') ?? 0) || 0;
  const [starting, setStarting] = useState(params.get('start') === '1');
  const lookups = useLookups();
  const runs = useResource<{ runs: Run[]; total: number; limit: number; offset: number }>(
    `/runs${qs({ status, agent_id: agentId, test_suite_id: suiteId, limit: LIMIT, offset })}`,
    (d) => (d.runs.some((r) => !isFinal(r.status)) ? POLL_MS : null),
  );
  const history = useResource<{ runs: Run[] }>(agentId ? `/runs${qs({ agent_id: agentId, limit: 100 })}` : null);
  const cancel = useAction((id: string) => post<Run>(`/runs/${id}/cancel`));

  const setFilter = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value); else next.delete(key);
    next.delete('offset');
    setParams(next);
  };
  const filtered = Boolean(status || agentId || suiteId);
  const noAgents = lookups.loaded && lookups.agents.length === 0;

  return (
    <>
      <PageHeader title="Runs" subtitle="Each run plays a suite of scenarios against one agent and grades every conversation."
        actions={!starting && !noAgents && <button type="button" className="btn primary" onClick={() => setStarting(true)}>Start a run</button>} />
      <ErrorNote error={lookups.error} />
      {noAgents && (
        <Empty title="Register an agent to get started">
          <p>A run tests one of your agents. Register it first (any OpenAI-compatible endpoint works, or Vapi, LiveKit, Pipecat Cloud, Retell, ElevenLabs), then come back here to start a run.</p>
          <Link className="btn primary" to="/agents/new">Register an agent</Link>
        </Empty>
      )}
      {starting && lookups.loaded && !noAgents && (
        <StartRunForm agents={lookups.agents} suites={lookups.suites} defaultAgentId={agentId || undefined}
          onStarted={(r) => navigate(`/runs/${r.id}`)} onCancel={() => setStarting(false)} />
      )}
      <form className="filters" aria-label="Filter runs" onSubmit={(e) => e.preventDefault()}>
        <Field label="Status">
          {(id) => (
            <select id={id} value={status} onChange={(e) => setFilter('status', e.target.value)}>
              <option value="">Any status</option>
              {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
            </select>
          )}
        </Field>
        <Field label="Agent">
          {(id) => (
            <select id={id} value={agentId} onChange={(e) => setFilter('agent_id', e.target.value)}>
              <option value="">Any agent</option>
              {lookups.agents.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
            </select>
          )}
        </Field>
        <Field label="Suite">
          {(id) => (
            <select id={id} value={suiteId} onChange={(e) => setFilter('test_suite_id', e.target.value)}>
              <option value="">Any suite</option>
              {lookups.suites.map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}
            </select>
          )}
        </Field>
        {filtered && <button type="button" className="btn" onClick={() => setParams(new URLSearchParams())}>Clear filters</button>}
      </form>
      {agentId && history.data && (
        <PassRateChart runs={history.data.runs} title={`Pass rate over time: ${lookups.agentName(agentId) ?? 'agent'}`} />
      )}
      <ErrorNote error={runs.error} />
      <ErrorNote error={cancel.error} title="Cancel failed" />
      {runs.loading && !runs.data && <Loading what="Loading runs" />}
      {runs.data && runs.data.total === 0 && !noAgents && (
        filtered
          ? <Empty title="No runs match these filters"><p>Clear the filters to see every run.</p></Empty>
          : <Empty title="No runs yet"><p>Start a run: pick an agent and a suite (the Default suite holds the whole built-in library), and watch the results come in.</p>
              {!starting && <button type="button" className="btn primary" onClick={() => setStarting(true)}>Start your first run</button>}</Empty>
      )}
      {runs.data && runs.data.runs.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Runs table">
          <table>
            <thead>
              <tr>
                <th scope="col">Run</th><th scope="col">Status</th><th scope="col">Pass rate</th><th scope="col">Results</th>
                <th scope="col">Agent</th><th scope="col">Suite</th><th scope="col">Started</th><th scope="col">Duration</th><th scope="col"><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {runs.data.runs.map((r) => (
                <tr key={r.id}>
                  <td><Link to={`/runs/${r.id}`}><span className="mono">{r.test_run_id}</span> {r.name}</Link></td>
                  <td><Badge value={r.status} /></td>
                  <td>{r.passed_count + r.failed_count > 0 ? fmtPct(r.pass_rate) : '—'}</td>
                  <td className="nowrap">
                    <span className="count ok">{r.passed_count} passed</span> · <span className="count bad">{r.failed_count} failed</span> · {r.error_count} errors
                    <span className="muted"> / {r.total_scenarios}</span>
                  </td>
                  <td>{lookups.agentName(r.agent_id) ? <Link to={`/agents/${r.agent_id}`}>{r.agent_name}</Link> : r.agent_name}</td>
                  <td>{lookups.suiteName(r.test_suite_id) ?? '—'}</td>
                  <td><time dateTime={r.started_at}>{fmtDateTime(r.started_at)}</time></td>
                  <td>{isFinal(r.status) ? fmtDuration(r.duration_seconds) : 'in progress'}</td>
                  <td>{!isFinal(r.status) && (
                    <ConfirmButton label="Cancel" question={`Cancel ${r.test_run_id}?`} confirmLabel="Cancel run"
                      onConfirm={async () => { await cancel.run(r.id); runs.reload(); }} />
                  )}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {runs.data && (
        <Pagination label="Runs" total={runs.data.total} limit={runs.data.limit} offset={runs.data.offset}
          onChange={(o) => { const next = new URLSearchParams(params); next.set('offset', String(o)); setParams(next); }} />
      )}
    </>
  );
}
