import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { del, post, put } from '../api';
import { ConfirmButton, ErrorNote, Field, Loading, PageHeader } from '../components/ui';
import { useAction, useResource, useTitle } from '../hooks';
import type { Scenario, TestSuite } from '../types';

/** Create (/suites/new) or edit (/suites/:id) a suite: pick templates, then put them in run order. */
export function SuiteEditor() {
  const { id } = useParams();
  const navigate = useNavigate();
  const suite = useResource<TestSuite>(id ? `/test-suites/${id}` : null);
  const catalog = useResource<{ scenarios: Scenario[] }>('/scenarios?limit=100');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [ids, setIds] = useState<string[]>([]);
  const [filter, setFilter] = useState('');
  const [status, setStatus] = useState('');
  useTitle(id ? 'Edit suite' : 'New suite');

  useEffect(() => {
    if (!suite.data) return;
    setName(suite.data.name);
    setDescription(suite.data.description ?? '');
    setIds(suite.data.scenario_ids);
  }, [suite.data]);

  const byId = useMemo(() => new Map((catalog.data?.scenarios ?? []).map((s) => [s.id, s])), [catalog.data]);
  const available = (catalog.data?.scenarios ?? []).filter((s) => !ids.includes(s.id) && `${s.name} ${s.category ?? ''} ${s.tags.join(' ')}`.toLowerCase().includes(filter.toLowerCase()));
  const save = useAction(() => {
    const body = { name: name.trim(), description: description.trim() || null, scenario_ids: ids };
    return id ? put<TestSuite>(`/test-suites/${id}`, body) : post<TestSuite>('/test-suites', body);
  });
  const remove = useAction(async () => { await del(`/test-suites/${id}`); return true; });

  if (id && suite.error) return <><PageHeader title="Suite" /><ErrorNote error={suite.error} /></>;
  if ((id && !suite.data) || !catalog.data) return <Loading what="Loading" />;

  const move = (i: number, by: number) => {
    const next = [...ids];
    const [x] = next.splice(i, 1);
    next.splice(i + by, 0, x);
    setIds(next);
    setStatus(`${byId.get(x)?.name ?? 'Scenario'} moved to position ${i + by + 1}.`);
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const saved = await save.run();
    if (saved) { setStatus('Saved.'); if (!id) navigate(`/suites/${saved.id}`); }
  };

  return (
    <>
      <p className="crumbs"><Link to="/suites">Suites</Link> / {id ? suite.data?.name : 'new'}</p>
      <PageHeader title={id ? suite.data!.name : 'New suite'} subtitle={suite.data?.is_default ? 'The default suite: runs without a suite use it. It can be edited but not deleted.' : undefined}
        actions={id && !suite.data?.is_default && <ConfirmButton label="Delete" question="Delete this suite?" confirmLabel="Delete suite" onConfirm={async () => { if (await remove.run()) navigate('/suites'); }} />} />
      <ErrorNote error={remove.error} title="Not deleted" />
      <form className="card" onSubmit={submit} aria-label="Suite">
        <div className="form-grid">
          <Field label="Name" required>{(fid) => <input id={fid} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />}</Field>
          <Field label="Description">{(fid) => <input id={fid} maxLength={2000} value={description} onChange={(e) => setDescription(e.target.value)} />}</Field>
        </div>
        <div className="split">
          <section aria-labelledby="selected-title">
            <h2 id="selected-title">In this suite, in run order ({ids.length})</h2>
            {ids.length === 0 && <p className="muted">Nothing yet: add templates from the library on the right.</p>}
            <ol className="pick-list">
              {ids.map((sid, i) => (
                <li key={sid}>
                  <span className="pick-name">{byId.get(sid)?.name ?? sid}</span>
                  <span className="pick-actions">
                    <button type="button" className="btn small" disabled={i === 0} onClick={() => move(i, -1)} aria-label={`Move ${byId.get(sid)?.name ?? 'scenario'} up`}>Up</button>
                    <button type="button" className="btn small" disabled={i === ids.length - 1} onClick={() => move(i, 1)} aria-label={`Move ${byId.get(sid)?.name ?? 'scenario'} down`}>Down</button>
                    <button type="button" className="btn small" onClick={() => setIds(ids.filter((x) => x !== sid))} aria-label={`Remove ${byId.get(sid)?.name ?? 'scenario'}`}>Remove</button>
                  </span>
                </li>
              ))}
            </ol>
          </section>
          <section aria-labelledby="library-title">
            <h2 id="library-title">Library</h2>
            <Field label="Filter templates">{(fid) => <input id={fid} type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />}</Field>
            <button type="button" className="btn small" disabled={available.length === 0} onClick={() => setIds([...ids, ...available.map((s) => s.id)])}>Add all {available.length} shown</button>
            {available.length === 0 && <p className="muted">{filter ? 'No template matches this filter.' : 'Every template is in the suite.'}</p>}
            {available.length > 0 && <ul className="pick-list scroll" tabIndex={0} aria-label="Templates to add">
              {available.map((s) => (
                <li key={s.id}>
                  <span className="pick-name">{s.name}</span>
                  <button type="button" className="btn small" onClick={() => setIds([...ids, s.id])} aria-label={`Add ${s.name}`}>Add</button>
                </li>
              ))}
            </ul>}
          </section>
        </div>
        <p className="sr-only" aria-live="polite">{status}</p>
        <ErrorNote error={save.error} title="Not saved" />
        <div className="actions">
          <button type="submit" className="btn primary" disabled={save.busy || ids.length === 0}>{save.busy ? 'Saving…' : id ? 'Save suite' : 'Create suite'}</button>
          {status === 'Saved.' && <span className="ok-text">Saved.</span>}
        </div>
      </form>
    </>
  );
}
