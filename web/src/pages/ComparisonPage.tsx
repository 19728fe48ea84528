import { Link, useParams, useSearchParams } from 'react-router-dom';
import { qs } from '../api';
import { Badge, Empty, ErrorNote, Loading, PageHeader, Stat } from '../components/ui';
import { useResource, useTitle } from '../hooks';
import type { Comparison, RunResults } from '../types';

type Row = Comparison['scenarios'][number];
const side = (s: Row['baseline']) => `${s.passed}/${s.attempts} passed${s.error ? `, ${s.error} errors` : ''}`;
const pValue = (p: number | null) => (p === null ? '—' : p < 0.001 ? '< 0.001' : p.toFixed(3));

/** What got worse, what got better, how sure we are, and what else changed between two runs. */
export function ComparisonPage() {
  const { id = '' } = useParams();
  const [params] = useSearchParams();
  const against = params.get('against') ?? '';
  const cmp = useResource<Comparison>(`/runs/${id}/comparison${qs({ against })}`);
  const c = cmp.data;
  const current = useResource<RunResults>(c ? `/runs/${c.run_id}/results?limit=500` : null);
  const base = useResource<RunResults>(c ? `/runs/${c.baseline_run_id}/results?limit=500` : null);
  useTitle(current.data && base.data ? `${current.data.test_run_id} vs ${base.data.test_run_id}` : 'Comparison');
  if (cmp.error) return <><PageHeader title="Comparison" /><ErrorNote error={cmp.error} /><p><Link to={`/runs/${id}`}>Back to the run</Link></p></>;
  if (!c) return <Loading what="Comparing the runs" />;

  // the first repetition of each scenario on each side: what the diff opens
  const firstOf = (r: RunResults | null) => new Map((r?.results ?? []).filter((x) => x.repetition === 1).map((x) => [x.scenario_id, x.id]));
  const cur = firstOf(current.data);
  const old = firstOf(base.data);
  const diffLink = (s: Row) => (cur.get(s.scenario_id) && old.get(s.scenario_id)
    ? <Link to={`/scenario-runs/${cur.get(s.scenario_id)}/diff?against=${old.get(s.scenario_id)}`}>transcripts side by side</Link> : null);
  const group = (title: string, rows: Row[]) => (
    <section aria-label={title}>
      <h2>{title} ({rows.length})</h2>
      {rows.length === 0 ? <Empty title="None" /> : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={title}>
          <table>
            <thead><tr><th scope="col">Scenario</th><th scope="col">Baseline</th><th scope="col">This run</th><th scope="col">p (one-sided Fisher)</th><th scope="col">Significant</th><th scope="col">Criteria that changed</th><th scope="col">Diff</th></tr></thead>
            <tbody>
              {rows.map((s) => (
                <tr key={s.scenario_id}>
                  <td>{s.scenario_name} <Badge value={s.change === 'regressed' ? 'failed' : s.change === 'improved' ? 'passed' : s.change} label={s.change.replace('_', ' ')} /></td>
                  <td>{side(s.baseline)}</td>
                  <td>{side(s.current)}</td>
                  <td>{pValue(s.p_value)}</td>
                  <td>{s.p_value === null ? '—' : s.significant ? 'yes (after Holm)' : 'no'}</td>
                  <td>{s.criteria.filter((k) => k.change === 'changed').map((k) => `${k.criterion}: ${k.baseline ?? '—'} → ${k.current ?? '—'}`).join('; ') || '—'}</td>
                  <td>{diffLink(s)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
  const pr = c.pass_rate;
  return (
    <>
      <p className="crumbs"><Link to="/runs">Runs</Link> / <Link to={`/runs/${c.run_id}`}>{current.data?.test_run_id ?? 'run'}</Link> / comparison</p>
      <PageHeader title={<>Compared with <Link to={`/runs/${c.baseline_run_id}`}>{base.data?.test_run_id ?? 'the baseline'}</Link> <Badge value={c.verdict === 'regressed' ? 'failed' : c.verdict === 'improved' ? 'passed' : c.verdict} label={c.verdict} /></>}
        subtitle="A scenario's change is significant when its one-sided Fisher exact p-value stays below 0.05 after Holm's correction; the verdict also weighs whether the changed scenarios lean one way (exact sign test)." />
      {c.comparability.warnings.length > 0 && (
        <div className="card warnings" aria-label="Comparability warnings">
          <strong>{c.comparability.comparable ? 'Also different between the runs:' : 'Not comparable: the tester or judge model differs.'}</strong>
          <ul>{c.comparability.warnings.map((w) => <li key={w}>{w}</li>)}</ul>
        </div>
      )}
      <dl className="stats">
        <Stat label="Pass rate, baseline" value={pr.baseline === null ? '—' : `${pr.baseline}%`} />
        <Stat label="Pass rate, this run" value={pr.current === null ? '—' : `${pr.current}%`} />
        <Stat label="Change" value={pr.delta === null ? '—' : `${pr.delta > 0 ? '+' : ''}${pr.delta}`} />
        {Object.entries(c.counts).map(([k, v]) => <Stat key={k} label={k.replace('_', ' ')} value={v} />)}
      </dl>
      {group('Got worse', c.scenarios.filter((s) => s.change === 'regressed'))}
      {group('Got better', c.scenarios.filter((s) => s.change === 'improved'))}
      {group('Flaky, changed or not comparable', c.scenarios.filter((s) => !['regressed', 'improved', 'unchanged'].includes(s.change)))}
    </>
  );
}
