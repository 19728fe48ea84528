import { Link, useNavigate, useParams } from 'react-router-dom';
import { del, post } from '../api';
import { describeCheck } from '../checks';
import { Badge, ConfirmButton, ErrorNote, Loading, PageHeader } from '../components/ui';
import { useAction, useResource, useTitle } from '../hooks';
import type { Scenario } from '../types';

export function ScenarioPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const s = useResource<Scenario>(`/scenarios/${id}`);
  const duplicate = useAction(() => post<Scenario>(`/scenarios/${id}/duplicate`));
  const remove = useAction(async () => { await del(`/scenarios/${id}`); return true; });
  useTitle(s.data?.name ?? 'Scenario');

  if (s.error && !s.data) return <><PageHeader title="Scenario" /><ErrorNote error={s.error} /><p><Link to="/scenarios">Back to the library</Link></p></>;
  if (!s.data) return <Loading what="Loading the scenario" />;
  const sc = s.data;

  return (
    <>
      <p className="crumbs"><Link to="/scenarios">Scenario library</Link> / {sc.name}</p>
      <PageHeader title={sc.name}
        subtitle={<>{sc.is_builtin ? 'Built-in (read-only: duplicate it to change it)' : 'Custom'} · {sc.category?.replace(/-/g, ' ') ?? 'uncategorized'}{sc.tags.length ? ` · ${sc.tags.join(', ')}` : ''}</>}
        actions={<>
          <button type="button" className="btn" disabled={duplicate.busy} onClick={async () => { const c = await duplicate.run(); if (c) navigate(`/scenarios/${c.id}/edit`); }}>Duplicate</button>
          {!sc.is_builtin && <Link className="btn primary" to={`/scenarios/${sc.id}/edit`}>Edit</Link>}
          {!sc.is_builtin && <ConfirmButton label="Delete" question="Delete this scenario?" confirmLabel="Delete scenario" onConfirm={async () => { if (await remove.run()) navigate('/scenarios'); }} />}
        </>} />
      <ErrorNote error={duplicate.error} title="Not duplicated" />
      <ErrorNote error={remove.error} title="Not deleted" />
      {sc.description && <p>{sc.description}</p>}
      <div className="split">
        <section aria-labelledby="caller-title">
          <h2 id="caller-title">The caller</h2>
          <dl className="facts">
            <dt>Persona</dt><dd>{sc.persona ?? '—'}</dd>
            <dt>Goal</dt><dd>{sc.goal ?? '—'}</dd>
            <dt>Instructions</dt><dd>{sc.instructions ?? '—'}</dd>
            <dt>Opening message</dt><dd>{sc.opening_message ?? '—'}</dd>
            <dt>Max turns</dt><dd>{sc.max_turns ?? 'the run’s setting'}</dd>
          </dl>
          <h3>Script <span className="muted small">(used when no caller model is configured)</span></h3>
          <ol className="script">{sc.script.map((line, i) => <li key={i}>{line}</li>)}</ol>
        </section>
        <section aria-labelledby="rubric-title">
          <h2 id="rubric-title">Rubric</h2>
          <p className="muted small">Passes when every required criterion is met and the score reaches {Math.round(sc.pass_threshold * 100)}%.</p>
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Criteria">
            <table>
              <thead><tr><th scope="col">Criterion</th><th scope="col">How it is graded</th><th scope="col">Points</th></tr></thead>
              <tbody>
                {sc.criteria.map((c, i) => (
                  <tr key={i}>
                    <td>{c.criterion} {c.required && <Badge value="PARTIAL" label="required" />}</td>
                    <td className="small">{describeCheck(c.check)}</td>
                    <td>{c.max_points}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      </div>
    </>
  );
}
