import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { del, post, qs } from '../api';
import { PassRateChart } from '../components/charts';
import { Badge, ConfirmButton, ErrorNote, Loading, PageHeader } from '../components/ui';
import { fmtDateTime, fmtPct } from '../format';
import { useAction, useResource, useTitle } from '../hooks';
import { providerLabel } from '../providerFields';
import type { Agent, Run, ValidationResult } from '../types';
import { AgentForm } from './AgentForm';

export function AgentPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const agent = useResource<Agent>(`/agents/${id}`);
  const runs = useResource<{ runs: Run[]; total: number }>(`/runs${qs({ agent_id: id, limit: 100 })}`);
  const [editing, setEditing] = useState(false);
  const validate = useAction(() => post<ValidationResult>(`/agents/${id}/validate`));
  const [result, setResult] = useState<ValidationResult | null>(null);
  const remove = useAction(async () => { await del(`/agents/${id}`); return true; });
  useTitle(agent.data?.name ?? 'Agent');

  if (agent.error && !agent.data) return <><PageHeader title="Agent" /><ErrorNote error={agent.error} /><p><Link to="/agents">Back to agents</Link></p></>;
  if (!agent.data) return <Loading what="Loading the agent" />;
  const a = agent.data;

  return (
    <>
      <p className="crumbs"><Link to="/agents">Agents</Link> / {a.name}</p>
      <PageHeader title={<>{a.name} <Badge value={a.is_active ? 'active' : 'inactive'} /></>}
        subtitle={<>{providerLabel(a.provider)} · created <time dateTime={a.created_at}>{fmtDateTime(a.created_at)}</time>{a.description ? ` · ${a.description}` : ''}</>}
        actions={<>
          <Link className="btn primary" to={`/runs${qs({ agent_id: a.id, start: 1 })}`}>Start a run</Link>
          <button type="button" className="btn" disabled={validate.busy} onClick={async () => { setResult(null); const r = await validate.run(); if (r) setResult(r); }}>
            {validate.busy ? 'Validating…' : 'Validate credentials'}
          </button>
          {!editing && <button type="button" className="btn" onClick={() => setEditing(true)}>Edit</button>}
          <ConfirmButton label="Delete" question="Delete this agent? Its runs in flight are canceled." confirmLabel="Delete agent"
            onConfirm={async () => { if (await remove.run()) navigate('/agents'); }} />
        </>} />
      <ErrorNote error={validate.error} title="Validation failed" />
      <ErrorNote error={remove.error} title="Not deleted" />
      {result && (
        <div className={`result ${result.valid ? 'ok' : 'bad'}`} role="status">
          <strong>{result.valid ? 'Credentials accepted' : 'Credentials not accepted'}:</strong> {result.message}
          {Object.keys(result.details).length > 0 && <pre className="small">{JSON.stringify(result.details, null, 2)}</pre>}
        </div>
      )}
      {editing && <AgentForm agent={a} onSaved={() => { setEditing(false); agent.reload(); }} onCancel={() => setEditing(false)} />}
      <p className="small">Configured fields (values are write-only): <span className="mono">{a.config_fields.join(', ') || '—'}</span></p>
      <p className="small">
        Tools: <span className="mono">{a.tool_names === null ? 'unknown (tool checks on names it never calls stay UNSURE)' : a.tool_names.join(', ') || 'none'}</span>
        {Object.keys(a.tool_aliases ?? {}).length > 0 && (
          <> · aliases: <span className="mono">{Object.entries(a.tool_aliases).map(([k, v]) => `${k} → ${v ?? 'none'}`).join(', ')}</span></>
        )}
      </p>
      <section aria-labelledby="history-title">
        <h2 id="history-title">Runs of this agent</h2>
        <ErrorNote error={runs.error} />
        {runs.data && <PassRateChart runs={runs.data.runs} title="Pass rate over time (completed runs)" />}
        {runs.data?.total === 0 && <p className="muted">No runs yet. <Link to={`/runs${qs({ agent_id: a.id, start: 1 })}`}>Start the first one</Link>.</p>}
        {runs.data && runs.data.runs.length > 0 && (
          <ul className="plain">
            {runs.data.runs.slice(0, 10).map((r) => (
              <li key={r.id}><Link to={`/runs/${r.id}`}><span className="mono">{r.test_run_id}</span> {r.name}</Link> <Badge value={r.status} /> {r.passed_count + r.failed_count > 0 ? fmtPct(r.pass_rate) : ''} <span className="muted">{fmtDateTime(r.started_at)}</span></li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
