import { fmtDateTime } from '../format';
import type { Run, ScenarioRun } from '../types';

/** Who a result is owed to, in words; `agent` is the only fault that speaks about the agent under test. */
export const FAULT_LABELS: Record<string, string> = {
  agent: 'agent', tester: 'caller (tester)', judge: 'judge', provider: 'platform', internal: 'Rehearsal', canceled: 'canceled',
};
export const FAULT_FILTERS = [['', 'Any fault'], ...Object.entries(FAULT_LABELS)] as const;

export const END_REASONS: Record<string, string> = {
  tester_ended: 'the caller was done',
  max_turns: 'cut off by max turns',
  agent_ended: 'the agent hung up',
  timeout: 'timed out',
  canceled: 'canceled',
  error: 'broke off (provider, tester or internal)',
};

export function FaultTag({ fault }: { fault: string | null | undefined }) {
  if (!fault) return null;
  return <span className={`tag fault fault-${fault}`} title="whose doing this outcome was">fault: {FAULT_LABELS[fault] ?? fault}</span>;
}

/** How many final outcomes were not the agent's doing, in one sentence. */
export function notAgentSentence(run: Pick<Run, 'faults' | 'retried_count'>): string {
  const f = run.faults;
  const others = f.tester + f.judge + f.provider + f.internal + f.canceled;
  const parts = (['tester', 'judge', 'provider', 'internal', 'canceled'] as const).filter((k) => f[k] > 0).map((k) => `${f[k]} ${FAULT_LABELS[k]}`);
  const outcomes = (n: number) => `${n} outcome${n === 1 ? '' : 's'}`;
  const head = others === 0 ? 'Every finished outcome is down to the agent.' : `${outcomes(others)} ${others === 1 ? 'was' : 'were'} not the agent's doing (${parts.join(', ')}) and do not count against it.`;
  const retried = run.retried_count > 0 ? ` ${run.retried_count} scenario run${run.retried_count === 1 ? ' was' : 's were'} attempted again after a fault that was not the agent's.` : '';
  return head + retried;
}

export function AttemptHistory({ attempts }: { attempts: ScenarioRun['attempt_history'] }) {
  if (attempts.length === 0) return null;
  return (
    <section className="card" aria-labelledby="attempts-title">
      <h2 id="attempts-title">Attempts that did not count</h2>
      <p className="muted">Only the last attempt counts; these ended on a fault that was not the agent's and were tried again with a fresh conversation.</p>
      <ol className="attempts">
        {attempts.map((a) => (
          <li key={a.attempt}>
            Attempt {a.attempt} <FaultTag fault={a.fault} />{' '}
            {a.started_at && <time dateTime={a.started_at}>{fmtDateTime(a.started_at, true)}</time>}
            {a.error_message && <> — <span className="bad-text">{a.error_message}</span></>}
          </li>
        ))}
      </ol>
    </section>
  );
}
