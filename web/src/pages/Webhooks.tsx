import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Badge, Empty, ErrorNote, Loading, OneTimeSecret, PageHeader } from '../components/ui';
import { fmtDateTime } from '../format';
import { useResource, useTitle } from '../hooks';
import { useLookups } from '../lookups';
import type { Webhook } from '../types';
import { WebhookForm } from './WebhookForm';

export function Webhooks() {
  useTitle('Webhooks');
  const hooks = useResource<{ webhooks: Webhook[]; total: number }>('/webhooks?limit=100');
  const lookups = useLookups();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<(Webhook & { secret?: string }) | null>(null);

  return (
    <>
      <PageHeader title="Webhooks" subtitle="Get a signed POST when a run completes, fails or is canceled."
        actions={!creating && <button type="button" className="btn primary" onClick={() => { setCreating(true); setCreated(null); }}>New webhook</button>} />
      {created?.secret && (
        <OneTimeSecret label={`Signing secret of ${created.url}`} value={created.secret}>
          Shown only now. Verify each delivery’s webhook-signature header with it. <Link to={`/webhooks/${created.id}`}>Open the webhook</Link> to send a test.
        </OneTimeSecret>
      )}
      {creating && (
        <WebhookForm agents={lookups.agents} onCancel={() => setCreating(false)}
          onSaved={(w) => { setCreated(w); setCreating(false); hooks.reload(); }} />
      )}
      <ErrorNote error={hooks.error} />
      {hooks.loading && !hooks.data && <Loading what="Loading webhooks" />}
      {hooks.data?.total === 0 && !creating && (
        <Empty title="No webhooks yet">
          <p>Instead of polling, let Rehearsal call your endpoint when a run ends (for example to post results to chat or fail a CI job).</p>
          <button type="button" className="btn primary" onClick={() => setCreating(true)}>Create a webhook</button>
        </Empty>
      )}
      {hooks.data && hooks.data.webhooks.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Webhooks table">
          <table>
            <thead><tr><th scope="col">Endpoint</th><th scope="col">Runs of</th><th scope="col">Events</th><th scope="col">State</th><th scope="col">Created</th></tr></thead>
            <tbody>
              {hooks.data.webhooks.map((w) => (
                <tr key={w.id}>
                  <td><Link to={`/webhooks/${w.id}`} className="mono small">{w.url}</Link>{w.description && <div className="muted small">{w.description}</div>}</td>
                  <td>{w.agent_id ? lookups.agentName(w.agent_id) ?? 'one agent' : 'every agent'}</td>
                  <td className="small">{w.events.map((e) => e.replace('test_run_', '')).join(', ')}</td>
                  <td><Badge value={w.is_active ? 'active' : 'inactive'} />{w.disabled_reason && <div className="small bad-text">{w.disabled_reason}</div>}</td>
                  <td><time dateTime={w.created_at}>{fmtDateTime(w.created_at)}</time></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
