import { useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { qs } from '../api';
import { Badge, Empty, ErrorNote, Field, Loading, PageHeader, Pagination } from '../components/ui';
import { useResource, useTitle } from '../hooks';
import type { Scenario } from '../types';

const LIMIT = 25;
type List = { scenarios: Scenario[]; total: number; limit: number; offset: number };

export function Scenarios() {
  useTitle('Scenario library');
  const [params, setParams] = useSearchParams();
  const category = params.get('category') ?? '';
  const tag = params.get('tag') ?? '';
  const q = params.get('q') ?? '';
  const offset = Number(params.get('offset') ?? 0) || 0;
  const [search, setSearch] = useState(q);
  const list = useResource<List>(`/scenarios${qs({ category, tag, q, limit: LIMIT, offset })}`);
  // the facets come from the whole catalog (the library is a few dozen templates)
  const all = useResource<List>('/scenarios?limit=100');
  const facets = useMemo(() => {
    const cats = new Set<string>();
    const tags = new Set<string>();
    for (const s of all.data?.scenarios ?? []) {
      if (s.category) cats.add(s.category);
      s.tags.forEach((t) => tags.add(t));
    }
    return { cats: [...cats].sort(), tags: [...tags].sort() };
  }, [all.data]);

  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (key !== 'offset') next.delete('offset');
    if (value) next.set(key, value); else next.delete(key);
    setParams(next);
  };

  return (
    <>
      <PageHeader title="Scenario library" subtitle="Templates for the simulated caller: who they are, what they want, and the rubric the conversation is graded against."
        actions={<><Link className="btn" to="/scenarios/generate">Generate scenarios</Link> <Link className="btn" to="/scenarios/new">New scenario</Link></>} />
      <form className="filters" role="search" aria-label="Search scenarios" onSubmit={(e) => { e.preventDefault(); set('q', search.trim()); }}>
        <Field label="Search">
          {(id) => <input id={id} type="search" value={search} placeholder="name or description" onChange={(e) => setSearch(e.target.value)} />}
        </Field>
        <Field label="Category">
          {(id) => (
            <select id={id} value={category} onChange={(e) => set('category', e.target.value)}>
              <option value="">Any category</option>
              {facets.cats.map((c) => <option key={c} value={c}>{c.replace(/-/g, ' ')}</option>)}
            </select>
          )}
        </Field>
        <Field label="Tag">
          {(id) => (
            <select id={id} value={tag} onChange={(e) => set('tag', e.target.value)}>
              <option value="">Any tag</option>
              {facets.tags.map((t) => <option key={t} value={t}>{t}</option>)}
            </select>
          )}
        </Field>
        <button type="submit" className="btn">Search</button>
        {(q || category || tag) && <button type="button" className="btn" onClick={() => { setSearch(''); setParams(new URLSearchParams()); }}>Clear</button>}
      </form>
      <ErrorNote error={list.error} />
      {list.loading && !list.data && <Loading what="Loading scenarios" />}
      {list.data?.total === 0 && <Empty title="No scenario matches"><p>Try another search, or clear the filters.</p></Empty>}
      {list.data && list.data.scenarios.length > 0 && (
        <ul className="cards">
          {list.data.scenarios.map((s) => (
            <li key={s.id} className="card scenario-card">
              <h2 className="h3"><Link to={`/scenarios/${s.id}`}>{s.name}</Link></h2>
              <p className="small">{s.description}</p>
              <p className="small muted">
                {s.is_builtin ? <Badge value="neutral" label="built-in" /> : <Badge value="active" label="custom" />}
                {' '}{s.category?.replace(/-/g, ' ') ?? 'uncategorized'} · {s.criteria.length} criteria · {s.tags.join(', ')}
              </p>
            </li>
          ))}
        </ul>
      )}
      {list.data && <Pagination label="Scenarios" total={list.data.total} limit={list.data.limit} offset={list.data.offset} onChange={(o) => set('offset', String(o))} />}
    </>
  );
}
