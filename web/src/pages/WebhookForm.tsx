import { useState, type FormEvent } from 'react';
import { patch, post } from '../api';
import { ErrorNote, Field } from '../components/ui';
import { useAction } from '../hooks';
import { WEBHOOK_EVENTS, type Agent, type Webhook } from '../types';

/** Create (no `webhook`) or edit. The agent scope is fixed at creation; the secret can be replaced, never read. */
export function WebhookForm({ webhook, agents, onSaved, onCancel }: { webhook?: Webhook; agents: Agent[]; onSaved: (w: Webhook & { secret?: string }) => void; onCancel?: () => void }) {
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [description, setDescription] = useState(webhook?.description ?? '');
  const [agentId, setAgentId] = useState(webhook?.agent_id ?? '');
  const [events, setEvents] = useState<string[]>(webhook?.events ?? [...WEBHOOK_EVENTS]);
  const [active, setActive] = useState(webhook?.is_active ?? true);
  const [secret, setSecret] = useState('');
  const save = useAction(() => {
    const body: Record<string, unknown> = { url: url.trim(), description: description.trim() || null, events };
    if (secret) body.secret = secret;
    if (webhook) return patch<Webhook>(`/webhooks/${webhook.id}`, { ...body, is_active: active });
    return post<Webhook & { secret: string }>('/webhooks', { ...body, ...(agentId ? { agent_id: agentId } : {}) });
  });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const saved = await save.run();
    if (saved) onSaved(saved);
  };
  const toggle = (ev: string) => setEvents(events.includes(ev) ? events.filter((x) => x !== ev) : [...events, ev]);

  return (
    <form className="card form-grid" onSubmit={submit} aria-label={webhook ? 'Edit webhook' : 'New webhook'}>
      <Field label="Endpoint URL" required hint="An absolute http(s) URL that accepts POSTed JSON. Deliveries are signed (Standard Webhooks).">
        {(id, hint) => <input id={id} aria-describedby={hint} type="url" required value={url} placeholder="https://example.com/hooks/rehearsal" onChange={(e) => setUrl(e.target.value)} />}
      </Field>
      <Field label="Description">{(id) => <input id={id} maxLength={2000} value={description} onChange={(e) => setDescription(e.target.value)} />}</Field>
      <Field label="Runs of" hint={webhook ? 'The scope is fixed once the webhook exists.' : 'Every run of the organization, or only one agent’s runs.'}>
        {(id, hint) => (
          <select id={id} aria-describedby={hint} value={agentId} disabled={!!webhook} onChange={(e) => setAgentId(e.target.value)}>
            <option value="">Every agent</option>
            {agents.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
          </select>
        )}
      </Field>
      <fieldset className="checks">
        <legend>Events</legend>
        {WEBHOOK_EVENTS.map((ev) => (
          <label key={ev}><input type="checkbox" checked={events.includes(ev)} onChange={() => toggle(ev)} /> {ev.replace(/_/g, ' ')}</label>
        ))}
      </fieldset>
      <Field label={webhook ? 'New signing secret' : 'Signing secret'} hint={webhook ? 'Leave empty to keep the current one.' : 'Leave empty to have one generated (whsec_…); it is shown once.'}>
        {(id, hint) => <input id={id} aria-describedby={hint} type="password" autoComplete="new-password" className="mono" value={secret} onChange={(e) => setSecret(e.target.value)} />}
      </Field>
      {webhook && (
        <div className="checkbox"><label><input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} /> Active</label></div>
      )}
      <ErrorNote error={save.error} title="Not saved" />
      <div className="actions">
        <button type="submit" className="btn primary" disabled={save.busy || events.length === 0}>{save.busy ? 'Saving…' : webhook ? 'Save changes' : 'Create webhook'}</button>
        {onCancel && <button type="button" className="btn" onClick={onCancel}>Cancel</button>}
      </div>
    </form>
  );
}
