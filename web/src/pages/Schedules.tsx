import { useState } from 'react';
import { Link } from 'react-router-dom';
import { del, patch, post } from '../api';
import { Badge, ConfirmButton, Empty, ErrorNote, Field, Loading, PageHeader } from '../components/ui';
import { fmtDateTime } from '../format';
import { useAction, useResource, useTitle } from '../hooks';
import { useLookups } from '../lookups';

interface Schedule {
  id: string; agent_id: string; test_suite_id: string | null; cron: string; timezone: string; test_mode: string;
  max_turns: number | null; repeats: number | null; is_active: boolean; last_run_id: string | null; next_run_at: string | null; created_at: string;
}
interface Firing { id: string; scheduled_for: string; fired_at: string; status: string; run_id: string | null; reason: string | null }

function Firings({ id }: { id: string }) {
  const f = useResource<{ firings: Firing[]; total: number }>(`/schedules/${id}/firings?limit=10`);
  if (!f.data) return <Loading what="Loading firings" />;
  if (f.data.total === 0) return <p className="muted small">Not fired yet.</p>;
  return (
    <ul className="small">
      {f.data.firings.map((x) => (
        <li key={x.id}>
          <time dateTime={x.scheduled_for}>{fmtDateTime(x.scheduled_for)}</time>{' '}
          <Badge value={x.status === 'created' ? 'completed' : 'failed'} label={x.status} />{' '}
          {x.run_id ? <Link to={`/runs/${x.run_id}`}>run</Link> : x.reason}
        </li>
      ))}
    </ul>
  );
}

export function Schedules() {
  useTitle('Schedules');
  const list = useResource<{ schedules: Schedule[]; total: number }>('/schedules?limit=100');
  const lookups = useLookups();
  const [form, setForm] = useState({ agent_id: '', test_suite_id: '', cron: '0 3 * * *', timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC', test_mode: 'full', max_turns: '', repeats: '' });
  const [open, setOpen] = useState<string | null>(null);
  const create = useAction(async () => {
    await post('/schedules', {
      agent_id: form.agent_id, test_suite_id: form.test_suite_id || undefined, cron: form.cron, timezone: form.timezone, test_mode: form.test_mode,
      max_turns: form.max_turns ? Number(form.max_turns) : undefined, repeats: form.repeats ? Number(form.repeats) : undefined,
    });
    list.reload();
  });
  const toggle = useAction(async (s: Schedule) => { await patch(`/schedules/${s.id}`, { is_active: !s.is_active }); list.reload(); });

  return (
    <>
      <PageHeader title="Schedules" subtitle="Runs started by cron, e.g. the full suite every night. Add a webhook with the test_run_regressed event to be paged." />
      <form className="card" onSubmit={(e) => { e.preventDefault(); void create.run(); }} aria-label="New schedule">
        <div className="form-grid">
          <Field label="Agent" required>{(id) => (
            <select id={id} required value={form.agent_id} onChange={(e) => setForm({ ...form, agent_id: e.target.value })}>
              <option value="">Choose an agent</option>
              {lookups.agents.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
            </select>)}
          </Field>
          <Field label="Suite">{(id) => (
            <select id={id} value={form.test_suite_id} onChange={(e) => setForm({ ...form, test_suite_id: e.target.value })}>
              <option value="">Default suite</option>
              {lookups.suites.map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}
            </select>)}
          </Field>
          <Field label="Cron" required hint="minute hour day-of-month month day-of-week">{(id, hint) => (
            <input id={id} aria-describedby={hint} required value={form.cron} onChange={(e) => setForm({ ...form, cron: e.target.value })} />)}
          </Field>
          <Field label="Time zone" required>{(id) => <input id={id} required value={form.timezone} onChange={(e) => setForm({ ...form, timezone: e.target.value })} />}</Field>
          <Field label="Mode">{(id) => (
            <select id={id} value={form.test_mode} onChange={(e) => setForm({ ...form, test_mode: e.target.value })}>
              <option value="demo">demo (first 20)</option><option value="full">full</option>
            </select>)}
          </Field>
          <Field label="Max turns" hint="1 to 50; the built-in scripts need 8 or more (default 4)">{(id, hint) => (
            <input id={id} aria-describedby={hint} type="number" min={1} max={50} value={form.max_turns} onChange={(e) => setForm({ ...form, max_turns: e.target.value })} />)}
          </Field>
          <Field label="Repeats" hint="1 to 10 runs of each scenario (default 1)">{(id, hint) => (
            <input id={id} aria-describedby={hint} type="number" min={1} max={10} value={form.repeats} onChange={(e) => setForm({ ...form, repeats: e.target.value })} />)}
          </Field>
        </div>
        <ErrorNote error={create.error} />
        <button type="submit" className="btn primary" disabled={create.busy}>Create schedule</button>
      </form>
      <ErrorNote error={list.error ?? toggle.error} />
      {list.loading && !list.data && <Loading what="Loading schedules" />}
      {list.data?.total === 0 && <Empty title="No schedules yet"><p>Create one above: it starts a run exactly as “Start run” would, at each minute the cron names.</p></Empty>}
      {list.data && list.data.schedules.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Schedules table">
          <table>
            <thead><tr><th scope="col">Agent</th><th scope="col">Suite</th><th scope="col">Cron</th><th scope="col">Next run</th><th scope="col">Last run</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
            <tbody>
              {list.data.schedules.map((s) => (
                <tr key={s.id}>
                  <td>{lookups.agentName(s.agent_id) ?? 'agent'}</td>
                  <td>{s.test_suite_id ? lookups.suiteName(s.test_suite_id) ?? 'suite' : 'Default'} · {s.test_mode}{s.max_turns ? ` · ${s.max_turns} turns` : ''}{s.repeats && s.repeats > 1 ? ` · ×${s.repeats}` : ''}</td>
                  <td><code>{s.cron}</code> <span className="muted small">{s.timezone}</span></td>
                  <td>{s.next_run_at ? <time dateTime={s.next_run_at}>{fmtDateTime(s.next_run_at)}</time> : '—'}</td>
                  <td>{s.last_run_id ? <Link to={`/runs/${s.last_run_id}`}>open</Link> : '—'}
                    <button type="button" className="btn small" onClick={() => setOpen(open === s.id ? null : s.id)} aria-expanded={open === s.id}>Firings</button>
                    {open === s.id && <Firings id={s.id} />}
                  </td>
                  <td><Badge value={s.is_active ? 'active' : 'inactive'} /></td>
                  <td>
                    <button type="button" className="btn small" onClick={() => void toggle.run(s)}>{s.is_active ? 'Pause' : 'Resume'}</button>
                    <ConfirmButton label="Delete" question="Delete this schedule? Its runs stay." onConfirm={async () => { await del(`/schedules/${s.id}`); list.reload(); }} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
