import { useState } from 'react';
import { Link } from 'react-router-dom';
import { post } from '../api';
import { ErrorNote, Field, PageHeader } from '../components/ui';
import { useAction, useTitle } from '../hooks';
import { useLookups } from '../lookups';

type Draft = Record<string, unknown> & { slug: string; name: string; category: string; goal?: string; criteria: unknown[]; script: string[] };

/** "Generate scenarios": drafts from a description or system prompt → review and edit → save the selected ones. */
export function GenerateScenarios() {
  useTitle('Generate scenarios');
  const lookups = useLookups();
  const [description, setDescription] = useState('');
  const [count, setCount] = useState(10);
  const [agentId, setAgentId] = useState('');
  const [drafts, setDrafts] = useState<Draft[]>([]);
  const [texts, setTexts] = useState<string[]>([]);
  const [selected, setSelected] = useState<boolean[]>([]);
  const [saved, setSaved] = useState<string[]>([]);
  const [info, setInfo] = useState<string | null>(null);

  const generate = useAction(async () => {
    const res = await post<{ scenarios: Draft[]; dropped: number; model: string }>('/scenarios/generate', { description, count, agent_id: agentId || undefined });
    setDrafts(res.scenarios);
    setTexts(res.scenarios.map((d) => JSON.stringify(d, null, 2)));
    setSelected(res.scenarios.map(() => true));
    setSaved([]);
    setInfo(`${res.scenarios.length} drafts by ${res.model}${res.dropped ? `; ${res.dropped} dropped (invalid answers)` : ''}. Review, edit, then save the ones you want.`);
  });
  const save = useAction(async () => {
    const names: string[] = [];
    for (let i = 0; i < drafts.length; i++) {
      if (!selected[i]) continue;
      const body = JSON.parse(texts[i]) as Draft;
      const made = await post<{ name: string }>('/scenarios', body);
      names.push(made.name);
    }
    setSaved(names);
  });

  return (
    <>
      <PageHeader title="Generate scenarios" subtitle="Drafts from what your agent does (or its system prompt), one per category of the library. Nothing is saved until you say so." />
      <form className="card" aria-label="Describe the agent" onSubmit={(e) => { e.preventDefault(); void generate.run(); }}>
        <Field label="What the agent does, or its system prompt" required>{(id) => (
          <textarea id={id} required rows={8} maxLength={20000} value={description} onChange={(e) => setDescription(e.target.value)} />)}
        </Field>
        <div className="form-grid">
          <Field label="How many" hint="1 to 50">{(id, hint) => (
            <input id={id} aria-describedby={hint} type="number" min={1} max={50} value={count} onChange={(e) => setCount(Number(e.target.value))} />)}
          </Field>
          <Field label="Agent (optional)">{(id) => (
            <select id={id} value={agentId} onChange={(e) => setAgentId(e.target.value)}>
              <option value="">None</option>
              {lookups.agents.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
            </select>)}
          </Field>
        </div>
        <ErrorNote error={generate.error} />
        <button type="submit" className="btn primary" disabled={generate.busy}>{generate.busy ? 'Generating…' : 'Generate drafts'}</button>
      </form>
      {info && <p role="status">{info}</p>}
      {drafts.map((d, i) => (
        <section className="card" key={d.slug} aria-label={`Draft ${d.name}`}>
          <label><input type="checkbox" checked={selected[i] ?? false} onChange={(e) => setSelected(selected.map((s, k) => (k === i ? e.target.checked : s)))} /> Save <strong>{d.name}</strong> <span className="muted small">({d.category}, {d.slug})</span></label>
          <Field label="Template (JSON, editable)">{(id) => (
            <textarea id={id} rows={12} className="mono small" value={texts[i]} onChange={(e) => setTexts(texts.map((t, k) => (k === i ? e.target.value : t)))} />)}
          </Field>
        </section>
      ))}
      {drafts.length > 0 && (
        <>
          <ErrorNote error={save.error} title="Saving stopped" />
          <button type="button" className="btn primary" disabled={save.busy || !selected.some(Boolean)} onClick={() => void save.run()}>Save selected</button>
        </>
      )}
      {saved.length > 0 && <p role="status">Saved {saved.length}: {saved.join(', ')}. <Link to="/scenarios">Open the scenario library</Link>.</p>}
    </>
  );
}
