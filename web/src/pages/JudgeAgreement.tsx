import { useState, type FormEvent } from 'react';
import { qs } from '../api';
import { ErrorNote, Loading, PageHeader, Stat } from '../components/ui';
import { useResource, useTitle } from '../hooks';
import type { AgreementReport as Agreement } from '../types';
const JUDGE = ['MET', 'PARTIAL', 'NOT_MET', 'UNSURE'] as const;
const REVIEW = ['MET', 'PARTIAL', 'NOT_MET'] as const;
const label = (d: string) => d.replace('_', ' ');
const pct = (n: number | null) => (n === null ? '—' : `${n} %`);
const kappa = (n: number | null) => (n === null ? '—' : n.toFixed(3));

/** How often the judge matched the people who reviewed its decisions, overall and per judge model. */
export function JudgeAgreement() {
  useTitle('Judge agreement');
  const [filters, setFilters] = useState({ judge_model: '', since: '' });
  const [draft, setDraft] = useState(filters);
  const res = useResource<Agreement>(`/judge/agreement${qs(filters)}`);
  const apply = (e: FormEvent) => { e.preventDefault(); setFilters(draft); };
  const a = res.data;
  return (
    <>
      <PageHeader title="Judge agreement"
        subtitle="Every criterion a judge graded and a person reviewed (the latest review counts): how often the judge's decision matched, and Cohen's kappa, which discounts agreement by chance. A judge UNSURE never matches." />
      <form className="card filters" onSubmit={apply} aria-label="Filter the agreement report">
        <label htmlFor="agreement-model">Judge model</label>
        <input id="agreement-model" value={draft.judge_model} maxLength={200} onChange={(e) => setDraft({ ...draft, judge_model: e.target.value })} placeholder="all models" />
        <label htmlFor="agreement-since">Reviewed since</label>
        <input id="agreement-since" type="date" value={draft.since} onChange={(e) => setDraft({ ...draft, since: e.target.value })} />
        <button type="submit" className="btn primary">Apply</button>
      </form>
      {res.error && <ErrorNote error={res.error} />}
      {!a && !res.error && <Loading what="Loading the agreement report" />}
      {a && (
        <>
          <dl className="stats">
            <Stat label="Reviewed criteria" value={a.reviewed} />
            <Stat label="Agreement" value={pct(a.agreement)} hint="criteria whose judge decision equals the review" />
            <Stat label="Cohen's kappa" value={kappa(a.cohen_kappa)} hint="1 = perfect, 0 = what chance would give" />
          </dl>
          {a.reviewed === 0 && <p className="muted">Nothing reviewed yet: correct a criterion on a scenario run's page and it shows here.</p>}
          <section aria-labelledby="confusion-title">
            <h2 id="confusion-title">Judge decision against review</h2>
            <table className="table">
              <caption className="sr-only">Rows: the judge's decision; columns: the review's decision</caption>
              <thead><tr><th scope="col">Judge \ review</th>{REVIEW.map((r) => <th key={r} scope="col">{label(r)}</th>)}</tr></thead>
              <tbody>
                {JUDGE.map((j) => (
                  <tr key={j}><th scope="row">{label(j)}</th>{REVIEW.map((r) => <td key={r}>{a.confusion[j][r]}</td>)}</tr>
                ))}
              </tbody>
            </table>
          </section>
          {a.by_judge_model.length > 0 && (
            <section aria-labelledby="models-title">
              <h2 id="models-title">By judge model</h2>
              <table className="table">
                <thead><tr><th scope="col">Judge model</th><th scope="col">Reviewed</th><th scope="col">Agreement</th><th scope="col">Cohen's kappa</th></tr></thead>
                <tbody>
                  {a.by_judge_model.map((m) => (
                    <tr key={m.judge_model}><th scope="row">{m.judge_model}</th><td>{m.reviewed}</td><td>{pct(m.agreement)}</td><td>{kappa(m.cohen_kappa)}</td></tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}
        </>
      )}
    </>
  );
}
