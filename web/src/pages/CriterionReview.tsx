import { useState, type FormEvent } from 'react';
import { post } from '../api';
import { ErrorNote } from '../components/ui';
import { fmtDateTime } from '../format';
import { useAction } from '../hooks';
import type { CriterionResult } from '../types';

const DECISIONS = ['MET', 'PARTIAL', 'NOT_MET'] as const;
const label = (d: string) => d.replace('_', ' ');

/**
 * A person's correction of one criterion: what the judge said next to the effective review, and a small form
 * that records a new review (the scenario run and its run are re-scored by the service).
 */
export function CriterionReview({ c, scenarioRunId, index, onSaved }: { c: CriterionResult; scenarioRunId: string; index: number; onSaved: () => void }) {
  const [open, setOpen] = useState(false);
  const [decision, setDecision] = useState<string>(c.review?.decision ?? (c.decision === 'UNSURE' ? 'MET' : c.decision));
  const [note, setNote] = useState('');
  const save = useAction(async () => {
    await post(`/scenario-runs/${scenarioRunId}/reviews`, { criterion_index: index, decision, ...(note.trim() ? { note: note.trim() } : {}) });
    setOpen(false);
    setNote('');
    onSaved();
  });
  const submit = (e: FormEvent) => { e.preventDefault(); void save.run(); };
  const r = c.review;
  return (
    <div className="review">
      {r && (
        <p className="reviewed">
          <span className="label">Reviewed</span> {label(r.decision)} by {r.reviewer.name || 'an API key'}
          {' '}(<time dateTime={r.created_at}>{fmtDateTime(r.created_at, true)}</time>); the judge said {label(c.judge_decision)}
          {r.note && <>: <q>{r.note}</q></>}
        </p>
      )}
      {!open && <button type="button" className="btn small" onClick={() => setOpen(true)}>{r ? 'Review again' : 'Correct this decision'}</button>}
      {open && (
        <form className="review-form" onSubmit={submit} aria-label={`Review criterion ${index + 1}`}>
          <label htmlFor={`review-decision-${index}`}>Decision</label>
          <select id={`review-decision-${index}`} value={decision} onChange={(e) => setDecision(e.target.value)}>
            {DECISIONS.map((d) => <option key={d} value={d}>{label(d)}</option>)}
          </select>
          <label htmlFor={`review-note-${index}`}>Note (optional)</label>
          <textarea id={`review-note-${index}`} maxLength={2000} rows={2} value={note} onChange={(e) => setNote(e.target.value)} />
          <div className="actions">
            <button type="submit" className="btn primary" disabled={save.busy}>{save.busy ? 'Saving…' : 'Save review'}</button>
            <button type="button" className="btn" onClick={() => setOpen(false)}>Cancel</button>
          </div>
          {save.error && <ErrorNote error={save.error} title="The review was not saved" />}
        </form>
      )}
    </div>
  );
}
