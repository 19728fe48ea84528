import { useEffect, useRef } from 'react';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import { qs } from '../api';
import { ErrorNote, Loading, PageHeader } from '../components/ui';
import { useResource, useTitle } from '../hooks';
import type { ScenarioRunDiff } from '../types';

/** Two scenario runs side by side, scrolled to where they first part. */
export function DiffPage() {
  const { id = '' } = useParams();
  const [params] = useSearchParams();
  const against = params.get('against') ?? '';
  const diff = useResource<ScenarioRunDiff>(`/scenario-runs/${id}/diff${qs({ against })}`);
  const first = useRef<HTMLTableRowElement | null>(null);
  useTitle('Transcripts side by side');
  const d = diff.data;
  useEffect(() => { first.current?.scrollIntoView({ block: 'center' }); first.current?.focus(); }, [d]);
  if (diff.error) return <><PageHeader title="Transcripts side by side" /><ErrorNote error={diff.error} /></>;
  if (!d) return <Loading what="Aligning the transcripts" />;
  return (
    <>
      <p className="crumbs"><Link to={`/scenario-runs/${id}`}>This scenario run</Link> / side by side with <Link to={`/scenario-runs/${against}`}>the other</Link></p>
      <PageHeader title="Transcripts side by side"
        subtitle={d.first_divergence === null ? 'The transcripts are identical.' : `They first differ at entry ${d.first_divergence + 1}.`} />
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Aligned transcripts">
        <table className="diff">
          <thead><tr><th scope="col">#</th><th scope="col">Role</th><th scope="col">This run</th><th scope="col">Other run</th></tr></thead>
          <tbody>
            {d.entries.map((e) => (
              <tr key={e.index} ref={e.index === d.first_divergence ? first : undefined} tabIndex={e.index === d.first_divergence ? -1 : undefined}
                className={e.same ? undefined : 'differs'} aria-label={e.same ? undefined : `entry ${e.index + 1} differs`}>
                <td>{e.index + 1}</td><td>{e.role}</td>
                <td>{e.current ?? <em className="muted">no entry</em>}</td>
                <td>{e.against ?? <em className="muted">no entry</em>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Criteria</h2>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Criteria side by side">
        <table>
          <thead><tr><th scope="col">Criterion</th><th scope="col">This run</th><th scope="col">Other run</th></tr></thead>
          <tbody>{d.criteria.map((c) => (
            <tr key={c.criterion_index} className={c.same ? undefined : 'differs'}><td>{c.criterion}</td><td>{c.current ?? '—'}</td><td>{c.against ?? '—'}</td></tr>
          ))}</tbody>
        </table>
      </div>
    </>
  );
}
