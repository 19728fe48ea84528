import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { post, put } from '../api';
import { CHECK_TYPES } from '../checks';
import { ErrorNote, Field, Loading, PageHeader } from '../components/ui';
import { useAction, useResource, useTitle } from '../hooks';
import type { Check, Criterion, Scenario } from '../types';

interface CriterionRow { criterion: string; max_points: string; required: boolean; type: string; value: string; role: string }

const toRow = (c: Criterion): CriterionRow => ({
  criterion: c.criterion, max_points: String(c.max_points), required: c.required, type: c.check?.type ?? '',
  value: c.check && 'value' in c.check ? String(c.check.value) : c.check && 'name' in c.check ? c.check.name : '',
  role: c.check && 'role' in c.check ? c.check.role ?? '' : '',
});

function toCheck(r: CriterionRow): Check | null {
  switch (r.type) {
    case '': return null;
    case 'contains': case 'not_contains': case 'regex': case 'not_regex':
      return { type: r.type, value: r.value, ...(r.role ? { role: r.role as 'assistant' | 'user' } : {}) };
    case 'tool_called': case 'tool_not_called': return { type: r.type, name: r.value };
    case 'max_turns': case 'max_response_ms': return { type: r.type, value: Number(r.value) };
    default: return { type: 'responded_every_turn' };
  }
}

const blank: CriterionRow = { criterion: '', max_points: '1', required: false, type: '', value: '', role: '' };

/** Create (/scenarios/new) or edit (/scenarios/:id/edit) a custom scenario template. */
export function ScenarioEditor() {
  const { id } = useParams();
  const navigate = useNavigate();
  const existing = useResource<Scenario>(id ? `/scenarios/${id}` : null);
  const [f, setF] = useState({ name: '', description: '', category: '', tags: '', persona: '', goal: '', instructions: '', opening_message: '', script: '', pass_threshold: '0.75', max_turns: '' });
  const [rows, setRows] = useState<CriterionRow[]>([{ ...blank }]);
  useTitle(id ? 'Edit scenario' : 'New scenario');

  useEffect(() => {
    const s = existing.data;
    if (!s) return;
    setF({
      name: s.name, description: s.description ?? '', category: s.category ?? '', tags: s.tags.join(', '), persona: s.persona ?? '', goal: s.goal ?? '',
      instructions: s.instructions ?? '', opening_message: s.opening_message ?? '', script: s.script.join('\n'),
      pass_threshold: String(s.pass_threshold), max_turns: s.max_turns == null ? '' : String(s.max_turns),
    });
    setRows(s.criteria.map(toRow));
  }, [existing.data]);

  const save = useAction(async () => {
    const text = (v: string) => v.trim() || null;
    const body = {
      name: f.name.trim(), description: text(f.description), category: text(f.category), persona: text(f.persona), goal: text(f.goal),
      instructions: text(f.instructions), opening_message: text(f.opening_message),
      tags: f.tags.split(',').map((t) => t.trim()).filter(Boolean),
      script: f.script.split('\n').map((l) => l.trim()).filter(Boolean),
      pass_threshold: Number(f.pass_threshold), max_turns: f.max_turns ? Number(f.max_turns) : null,
      criteria: rows.map((r) => ({ criterion: r.criterion.trim(), max_points: Number(r.max_points), required: r.required, check: toCheck(r) })),
    };
    return id ? put<Scenario>(`/scenarios/${id}`, body) : post<Scenario>('/scenarios', body);
  });

  if (id && existing.error) return <><PageHeader title="Edit scenario" /><ErrorNote error={existing.error} /></>;
  if (id && !existing.data) return <Loading what="Loading the scenario" />;
  if (existing.data?.is_builtin) {
    return <><PageHeader title="Built-in scenarios are read-only" /><p>Duplicate it from <Link to={`/scenarios/${id}`}>its page</Link> to make an editable copy.</p></>;
  }

  const text = (key: keyof typeof f, label: string, opts: { area?: boolean; hint?: string; required?: boolean } = {}) => (
    <Field label={label} hint={opts.hint} required={opts.required}>
      {(fid, hint) => opts.area
        ? <textarea id={fid} aria-describedby={hint} rows={key === 'script' ? 6 : 3} value={f[key]} onChange={(e) => setF({ ...f, [key]: e.target.value })} />
        : <input id={fid} aria-describedby={hint} required={opts.required} value={f[key]} onChange={(e) => setF({ ...f, [key]: e.target.value })} />}
    </Field>
  );
  const setRow = (i: number, patch: Partial<CriterionRow>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const saved = await save.run();
    if (saved) navigate(`/scenarios/${saved.id}`);
  };

  return (
    <>
      <p className="crumbs"><Link to="/scenarios">Scenario library</Link> / {id ? f.name : 'new'}</p>
      <PageHeader title={id ? `Edit “${existing.data?.name}”` : 'New scenario'} />
      <form className="card form-grid" onSubmit={submit} aria-label="Scenario">
        {text('name', 'Name', { required: true })}
        {text('description', 'Description', { area: true })}
        {text('category', 'Category')}
        {text('tags', 'Tags', { hint: 'Comma-separated.' })}
        {text('persona', 'Persona', { area: true, hint: 'Who the simulated caller is.' })}
        {text('goal', 'Goal', { area: true })}
        {text('instructions', 'Instructions', { area: true })}
        {text('opening_message', 'Opening message')}
        {text('script', 'Script', { area: true, hint: 'One caller line per line; used when no caller model is configured.' })}
        {text('pass_threshold', 'Pass threshold', { hint: 'Score (0 to 1) a conversation needs to pass.' })}
        {text('max_turns', 'Max turns', { hint: 'Optional cap on the run’s max turns.' })}
        <fieldset className="criteria-editor">
          <legend>Criteria</legend>
          {rows.map((r, i) => (
            <div className="criterion-row" key={i} role="group" aria-label={`Criterion ${i + 1}`}>
              <Field label={`Criterion ${i + 1}`} required>
                {(fid) => <input id={fid} required value={r.criterion} onChange={(e) => setRow(i, { criterion: e.target.value })} />}
              </Field>
              <Field label="Points">{(fid) => <input id={fid} type="number" min={0.5} step="any" value={r.max_points} onChange={(e) => setRow(i, { max_points: e.target.value })} />}</Field>
              <Field label="Check">
                {(fid) => (
                  <select id={fid} value={r.type} onChange={(e) => setRow(i, { type: e.target.value })}>
                    {CHECK_TYPES.map((t) => <option key={t} value={t}>{t ? t.replace(/_/g, ' ') : 'judge model'}</option>)}
                  </select>
                )}
              </Field>
              {r.type && r.type !== 'responded_every_turn' && (
                <Field label={r.type.startsWith('tool') ? 'Tool name' : 'Value'}>
                  {(fid) => <input id={fid} required value={r.value} onChange={(e) => setRow(i, { value: e.target.value })} />}
                </Field>
              )}
              {/contains|regex/.test(r.type) && (
                <Field label="Whose words">
                  {(fid) => (
                    <select id={fid} value={r.role} onChange={(e) => setRow(i, { role: e.target.value })}>
                      <option value="">anyone</option><option value="assistant">the agent</option><option value="user">the caller</option>
                    </select>
                  )}
                </Field>
              )}
              <label className="inline"><input type="checkbox" checked={r.required} onChange={(e) => setRow(i, { required: e.target.checked })} /> Required</label>
              <button type="button" className="btn small" disabled={rows.length === 1} onClick={() => setRows(rows.filter((_, j) => j !== i))}>Remove criterion {i + 1}</button>
            </div>
          ))}
          <button type="button" className="btn" onClick={() => setRows([...rows, { ...blank }])}>Add a criterion</button>
        </fieldset>
        <ErrorNote error={save.error} title="Not saved" />
        <div className="actions">
          <button type="submit" className="btn primary" disabled={save.busy}>{save.busy ? 'Saving…' : 'Save scenario'}</button>
          <Link className="btn" to={id ? `/scenarios/${id}` : '/scenarios'}>Cancel</Link>
        </div>
      </form>
    </>
  );
}
