import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { del, post, qs } from '../api';
import { Badge, ConfirmButton, Empty, ErrorNote, Loading, PageHeader, Pagination } from '../components/ui';
import { fmtDateTime, fmtMs } from '../format';
import { useAction, useResource, useTitle } from '../hooks';
import { useLookups } from '../lookups';
import type { Delivery, DeliveryDetail, Webhook } from '../types';
import { WebhookForm } from './WebhookForm';

const LIMIT = 20;

export function WebhookPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const hook = useResource<Webhook>(`/webhooks/${id}`);
  const [offset, setOffset] = useState(0);
  const deliveries = useResource<{ deliveries: Delivery[]; total: number; limit: number; offset: number }>(
    `/webhooks/${id}/deliveries${qs({ limit: LIMIT, offset })}`,
    // pending deliveries still have automatic attempts ahead: keep the list fresh while any are shown
    (d) => (d.deliveries.some((x) => x.status === 'pending') ? 5000 : null),
  );
  const lookups = useLookups();
  const [editing, setEditing] = useState(false);
  const [open, setOpen] = useState<string | null>(null);
  const test = useAction(() => post<DeliveryDetail>(`/webhooks/${id}/test`));
  const remove = useAction(async () => { await del(`/webhooks/${id}`); return true; });
  useTitle('Webhook');

  if (hook.error && !hook.data) return <><PageHeader title="Webhook" /><ErrorNote error={hook.error} /><p><Link to="/webhooks">Back to webhooks</Link></p></>;
  if (!hook.data) return <Loading what="Loading the webhook" />;
  const w = hook.data;

  return (
    <>
      <p className="crumbs"><Link to="/webhooks">Webhooks</Link> / endpoint</p>
      <PageHeader title={<><span className="mono break">{w.url}</span> <Badge value={w.is_active ? 'active' : 'inactive'} /></>}
        subtitle={<>{w.description ? `${w.description} · ` : ''}runs of {w.agent_id ? lookups.agentName(w.agent_id) ?? 'one agent' : 'every agent'} · {w.events.join(', ')}</>}
        actions={<>
          <button type="button" className="btn primary" disabled={test.busy} onClick={async () => { const d = await test.run(); if (d) { setOpen(d.id); deliveries.reload(); } }}>{test.busy ? 'Sending…' : 'Send test event'}</button>
          {!editing && <button type="button" className="btn" onClick={() => setEditing(true)}>Edit</button>}
          <ConfirmButton label="Delete" question="Delete this webhook and its delivery history?" confirmLabel="Delete webhook" onConfirm={async () => { if (await remove.run()) navigate('/webhooks'); }} />
        </>} />
      {w.disabled_reason && <div className="error-note" role="alert">Deliveries stopped: {w.disabled_reason}. Edit the webhook and tick Active to resume.</div>}
      <ErrorNote error={test.error} title="Test not sent" />
      <ErrorNote error={remove.error} title="Not deleted" />
      {editing && <WebhookForm webhook={w} agents={lookups.agents} onCancel={() => setEditing(false)} onSaved={() => { setEditing(false); hook.reload(); }} />}
      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Deliveries</h2>
        <ErrorNote error={deliveries.error} />
        {deliveries.data?.total === 0 && <Empty title="No deliveries yet"><p>Deliveries appear when a run of {w.agent_id ? 'this agent' : 'your organization'} ends. Send a test event to check your endpoint now.</p></Empty>}
        {deliveries.data && deliveries.data.deliveries.length > 0 && (
          <ul className="deliveries">
            {deliveries.data.deliveries.map((d) => (
              <li key={d.id} className="card">
                <div className="delivery-head">
                  <Badge value={d.status} /> <strong>{d.event}</strong>
                  <span className="muted small"><time dateTime={d.created_at}>{fmtDateTime(d.created_at)}</time> · {d.attempt_count} attempt{d.attempt_count === 1 ? '' : 's'}{d.next_attempt_at ? ` · next attempt ${fmtDateTime(d.next_attempt_at, true)}` : ''}</span>
                  <button type="button" className="btn small" aria-expanded={open === d.id} aria-controls={`delivery-${d.id}`} onClick={() => setOpen(open === d.id ? null : d.id)}>
                    {open === d.id ? 'Hide attempts' : 'Show attempts'}
                  </button>
                </div>
                {open === d.id && <DeliveryAttempts webhookId={id} deliveryId={d.id} onChanged={deliveries.reload} />}
              </li>
            ))}
          </ul>
        )}
        {deliveries.data && <Pagination label="Deliveries" total={deliveries.data.total} limit={LIMIT} offset={offset} onChange={setOffset} />}
      </section>
    </>
  );
}

function DeliveryAttempts({ webhookId, deliveryId, onChanged }: { webhookId: string; deliveryId: string; onChanged: () => void }) {
  const detail = useResource<DeliveryDetail>(`/webhooks/${webhookId}/deliveries/${deliveryId}`);
  const redeliver = useAction(() => post<DeliveryDetail>(`/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`));
  if (detail.error) return <ErrorNote error={detail.error} />;
  if (!detail.data) return <Loading what="Loading attempts" />;
  const d = detail.data;
  return (
    <div id={`delivery-${deliveryId}`} className="delivery-detail">
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Attempts">
        <table>
          <thead><tr><th scope="col">#</th><th scope="col">Trigger</th><th scope="col">When</th><th scope="col">Response</th><th scope="col">Took</th><th scope="col">Error</th></tr></thead>
          <tbody>
            {d.attempts.map((a) => (
              <tr key={a.attempt}>
                <td>{a.attempt}</td><td>{a.trigger}</td>
                <td><time dateTime={a.attempted_at}>{fmtDateTime(a.attempted_at, true)}</time></td>
                <td>{a.response_status ?? '—'}{a.response_body && <pre className="small">{a.response_body}</pre>}</td>
                <td>{fmtMs(a.duration_ms)}</td>
                <td className="bad-text small">{a.error ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {d.attempts.length === 0 && <p className="muted">No attempt yet: the first one is on its way.</p>}
      <details><summary>Payload</summary><pre className="small">{JSON.stringify(d.payload, null, 2)}</pre></details>
      <ErrorNote error={redeliver.error} title="Redelivery failed" />
      <button type="button" className="btn" disabled={redeliver.busy} onClick={async () => { if (await redeliver.run()) { detail.reload(); onChanged(); } }}>
        {redeliver.busy ? 'Sending…' : 'Redeliver now'}
      </button>
    </div>
  );
}
