import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { AttemptHistory, END_REASONS, FaultTag } from '../components/faults';
import { Badge, ErrorNote, Loading, PageHeader, Stat } from '../components/ui';
import { fmtDateTime, fmtMs, fmtUsd } from '../format';
import { useResource, useTitle } from '../hooks';
import type { CriterionResult, EvidenceQuote, ScenarioRun } from '../types';
import { CriterionReview } from './CriterionReview';
import { Transcript, turnElementId, type ActiveQuote } from './Transcript';

const UNFINISHED = ['pending', 'running', 'grading'];

export function ScenarioRunPage() {
  const { id = '' } = useParams();
  const sr = useResource<ScenarioRun>(`/scenario-runs/${id}`, (d) => (UNFINISHED.includes(d.status) ? 2500 : null));
  const [active, setActive] = useState<ActiveQuote | null>(null);
  useTitle(sr.data?.scenario_name ?? 'Scenario run');

  if (sr.error && !sr.data) return <><PageHeader title="Scenario run" /><ErrorNote error={sr.error} /><p><Link to="/runs">Back to runs</Link></p></>;
  if (!sr.data) return <Loading what="Loading the scenario run" />;
  const s = sr.data;
  const quotes = s.criteria_results.flatMap((c) => c.evidence_quotes ?? []);

  const show = (q: EvidenceQuote) => {
    setActive({ turn: q.turn, text: q.text });
    const el = document.getElementById(turnElementId(q.turn));
    el?.scrollIntoView({ block: 'center', behavior: 'smooth' });
    el?.focus({ preventScroll: true });
  };

  return (
    <>
      <p className="crumbs"><Link to="/runs">Runs</Link> / <Link to={`/runs/${s.test_run_id}`}>Run</Link> / {s.scenario_name}</p>
      <PageHeader title={<>{s.scenario_name} <Badge value={s.status} /> <FaultTag fault={s.fault} /></>}
        subtitle={<>{s.grade_summary ?? (UNFINISHED.includes(s.status) ? 'Not graded yet: this page refreshes every few seconds.' : '')}
          {s.completed_at && <> · finished <time dateTime={s.completed_at}>{fmtDateTime(s.completed_at, true)}</time></>}
          {' · '}<Link to={`/scenarios/${s.scenario_id}`}>view the scenario template</Link></>} />
      {s.error_message && <div className="error-note" role="alert"><strong>Error: </strong>{s.error_message}</div>}
      <dl className="stats">
        <Stat label="First response" value={fmtMs(s.metrics?.time_to_first_response_ms)} />
        <Stat label="Average reply" value={fmtMs(s.metrics?.average_turn_duration_ms)} />
        <Stat label="Conversation" value={fmtMs(s.metrics?.total_duration_ms)} />
        <Stat label="Turns" value={s.metrics?.turn_count ?? '—'} />
        <Stat label="Ended" value={s.end_reason ? END_REASONS[s.end_reason] ?? s.end_reason : '—'} hint="how the conversation ended" />
        <Stat label="Agent replies" value={s.agent_turns ?? '—'} hint="a conversation the agent never answered is not graded" />
        <Stat label="Decided" value={s.decided_share == null ? '—' : `${Math.round(s.decided_share * 100)} %`}
          hint="share of the points the judge and checks could decide; a pass needs the threshold met with the undecided counted as not met" />
        <Stat label="Attempts" value={s.attempts} hint="conversations started for this scenario run; only the last counts" />
        <Stat label="Cost" value={fmtUsd(s.metrics?.cost_usd)} />
        <Stat label="Caller" value={s.tester_model ?? 'scripted'} hint="the model that played the caller" />
        <Stat label="Judge" value={s.judge_model ?? 'none'}
          hint={`the model that graded judge criteria${s.judge_prompt_version ? `; prompt version ${s.judge_prompt_version}` : ''}`} />
      </dl>
      <AttemptHistory attempts={s.attempt_history} />
      <div className="split">
        <section aria-labelledby="transcript-title">
          <h2 id="transcript-title">Transcript</h2>
          <Transcript entries={s.transcript} quotes={quotes} active={active} />
        </section>
        <section aria-labelledby="criteria-title">
          <h2 id="criteria-title">Criteria</h2>
          {s.criteria_results.length === 0
            ? <p className="muted">{UNFINISHED.includes(s.status) ? 'Grades appear when the conversation has been graded.' : 'No criteria were graded.'}</p>
            : <ul className="criteria">{s.criteria_results.map((c, i) => <CriterionCard key={i} c={c} onQuote={show} active={active}
                review={UNFINISHED.includes(s.status) ? undefined : { scenarioRunId: s.id, index: i, onSaved: sr.reload }} />)}</ul>}
        </section>
      </div>
    </>
  );
}

export function CriterionCard({ c, onQuote, active, review }: {
  c: CriterionResult; onQuote: (q: EvidenceQuote) => void; active: ActiveQuote | null;
  /** Set on a finished scenario run: a person may correct the decision. */
  review?: { scenarioRunId: string; index: number; onSaved: () => void };
}) {
  return (
    <li className={`criterion decision-${c.decision}`}>
      <div className="criterion-head">
        <Badge value={c.decision} label={c.decision.replace('_', ' ')} />
        <span className="points">{c.points_awarded} / {c.max_points} points</span>
        {c.required && <span className="tag">required</span>}
        {c.graded_by && <span className="tag">{c.graded_by === 'check' ? 'deterministic check' : 'judge'}</span>}
      </div>
      <p className="criterion-text">{c.criterion}</p>
      <p className="rationale">{c.rationale}</p>
      {c.votes && c.votes.length > 1 && (
        <p className="votes"><span className="label">Judge votes</span> {c.votes.map((v) => v.replace('_', ' ')).join(' → ')}</p>
      )}
      {c.evidence_quotes && c.evidence_quotes.length > 0 && (
        <div className="evidence">
          <span className="label">Evidence</span>
          <ul>
            {c.evidence_quotes.map((q, i) => (
              <li key={i}>
                <button type="button" className={`quote${active?.turn === q.turn && active.text === q.text ? ' current' : ''}`} onClick={() => onQuote(q)}>
                  <span className="sr-only">Show in the transcript: </span>
                  <q>{q.text}</q> <span className="muted">entry #{q.turn} ({q.role === 'user' ? 'caller' : 'agent'})</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      {c.rejected_quotes && c.rejected_quotes.length > 0 && (
        <div className="rejected">
          <span className="label">Quotes not in the transcript (ignored)</span>
          <ul>
            {c.rejected_quotes.map((q, i) => (
              <li key={i}><q>{q.text}</q> <span className="muted">cited as entry #{q.turn} ({q.role === 'user' ? 'caller' : 'agent'}): {q.reason}</span></li>
            ))}
          </ul>
        </div>
      )}
      {review && <CriterionReview c={c} {...review} />}
    </li>
  );
}
