import { useState, type FormEvent } from 'react';
import { post, put } from '../api';
import { ErrorNote, Field } from '../components/ui';
import { useAction } from '../hooks';
import { buildConfig, PROVIDER_FORMS, providerLabel, type ConfigField } from '../providerFields';
import type { Agent } from '../types';
import { AgentToolsFields } from './AgentTools';
import { toolFields, toolsDraft } from '../agentTools';

/** Create (no `agent`) or edit an agent. The config is write-only: editing replaces it whole, if asked to. */
export function AgentForm({ agent, onSaved, onCancel }: { agent?: Agent; onSaved: (a: Agent) => void; onCancel?: () => void }) {
  const [provider, setProvider] = useState(agent?.provider ?? 'provider_4');
  const [name, setName] = useState(agent?.name ?? '');
  const [description, setDescription] = useState(agent?.description ?? '');
  const [active, setActive] = useState(agent?.is_active ?? true);
  const [replaceConfig, setReplaceConfig] = useState(!agent);
  const [values, setValues] = useState<Record<string, string>>({});
  const [tools, setTools] = useState(() => toolsDraft(agent));
  const save = useAction(async () => {
    const body: Record<string, unknown> = { name: name.trim(), description: description.trim() || null, ...toolFields(tools) };
    if (replaceConfig) body.config = buildConfig(provider, values);
    if (!agent) return post<Agent>('/agents', { provider, ...body });
    return put<Agent>(`/agents/${agent.id}`, { ...body, is_active: active });
  });
  const form = PROVIDER_FORMS[provider];

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const saved = await save.run();
    if (saved) onSaved(saved);
  };

  return (
    <form className="card form-grid" onSubmit={submit} aria-label={agent ? 'Edit agent' : 'Register an agent'}>
      <Field label="Provider" required hint={agent ? 'The provider of an agent cannot change.' : 'Where the agent runs. The form below asks for that platform’s settings.'}>
        {(id, hint) => (
          <select id={id} aria-describedby={hint} value={provider} disabled={!!agent} onChange={(e) => { setProvider(e.target.value); setValues({}); }}>
            {Object.keys(PROVIDER_FORMS).map((p) => <option key={p} value={p}>{providerLabel(p)}</option>)}
          </select>
        )}
      </Field>
      <Field label="Name" required hint="Unique in your organization.">
        {(id, hint) => <input id={id} aria-describedby={hint} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Description">
        {(id) => <textarea id={id} rows={2} maxLength={2000} value={description} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      {agent && (
        <div className="checkbox">
          <label><input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} /> Active (inactive agents cannot start runs)</label>
        </div>
      )}
      {agent && (
        <div className="checkbox">
          <label><input type="checkbox" checked={replaceConfig} onChange={(e) => setReplaceConfig(e.target.checked)} /> Replace the configuration</label>
          <p className="hint">Configuration values are write-only and never shown again. Set now: {agent.config_fields.join(', ') || 'nothing'}.</p>
        </div>
      )}
      {replaceConfig && form && (
        <fieldset className="config">
          <legend>{form.platform} configuration</legend>
          {form.fields.map((f) => (
            <ConfigInput key={`${provider}.${f.name}`} field={f} value={values[f.name] ?? ''} onChange={(v) => setValues((s) => ({ ...s, [f.name]: v }))} />
          ))}
        </fieldset>
      )}
      <AgentToolsFields draft={tools} onChange={setTools} isNew={!agent} />
      <ErrorNote error={save.error} title={agent ? 'Not saved' : 'Not registered'} />
      <div className="actions">
        <button type="submit" className="btn primary" disabled={save.busy}>{save.busy ? 'Saving…' : agent ? 'Save changes' : 'Register agent'}</button>
        {onCancel && <button type="button" className="btn" onClick={onCancel}>Cancel</button>}
      </div>
    </form>
  );
}

function ConfigInput({ field: f, value, onChange }: { field: ConfigField; value: string; onChange: (v: string) => void }) {
  return (
    <Field label={f.name} required={f.required} hint={f.hint}>
      {(id, hint) => {
        const common = { id, 'aria-describedby': hint, value, required: f.required };
        switch (f.kind) {
          case 'boolean':
            return (
              <select {...common} onChange={(e) => onChange(e.target.value)}>
                <option value="">Default</option><option value="true">Yes</option><option value="false">No</option>
              </select>
            );
          case 'enum':
            return (
              <select {...common} onChange={(e) => onChange(e.target.value)}>
                <option value="">Default</option>
                {f.options!.map((o) => <option key={o} value={o}>{o}</option>)}
              </select>
            );
          case 'json': case 'json-or-text': case 'longtext':
            return <textarea {...common} rows={3} className={f.kind === 'longtext' ? undefined : 'mono'} onChange={(e) => onChange(e.target.value)} />;
          case 'secret':
            return <input {...common} type="password" autoComplete="new-password" spellCheck={false} className="mono" onChange={(e) => onChange(e.target.value)} />;
          case 'integer': case 'number':
            return <input {...common} type="number" step={f.kind === 'integer' ? 1 : 'any'} onChange={(e) => onChange(e.target.value)} />;
          default:
            return <input {...common} type={f.kind === 'url' ? 'url' : 'text'} placeholder={f.placeholder} spellCheck={false} onChange={(e) => onChange(e.target.value)} />;
        }
      }}
    </Field>
  );
}
