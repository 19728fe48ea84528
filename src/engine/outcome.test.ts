import { describe, expect, it } from 'vitest';
import { ProviderError } from './provider.js';
import { JudgeError } from './judge/llm.js';
import { decideOutcome, isRetried, NO_TESTER_MESSAGE, OUTCOME_KINDS, type OutcomeEvent, type OutcomeKind } from './outcome.js';
import { TesterError } from './tester/types.js';

const graded = (status: 'passed' | 'failed' | 'error') =>
  ({ event: 'graded', score: { status, error_message: status === 'error' ? 'grading inconclusive' : null } }) as const;
const provider = (kind: ConstructorParameters<typeof ProviderError>[0], status?: number) =>
  ({ event: 'thrown', error: new ProviderError(kind, 'nope', { status }) }) as const;

// [event, kind, status, fault, side, error_message]
const CASES: Array<[OutcomeEvent, OutcomeKind, string, string | null, string | null, string | null]> = [
  [graded('passed'), 'passed', 'passed', null, null, null],
  [graded('failed'), 'failed', 'failed', 'agent', null, null],
  [graded('error'), 'grading_inconclusive', 'error', 'judge', 'judge', 'grading inconclusive'],
  [{ ...graded('error'), no_judge: true }, 'inconclusive_without_judge', 'error', 'judge', 'judge', 'grading inconclusive'],
  [{ ...graded('error'), cut_off: { max_turns: 4, lines_left: 3 } }, 'cut_off', 'error', 'tester', 'tester', 'tester: cut off at max_turns 4 with 3 script lines left'],
  [{ event: 'caller_left_brief', note: 'invented an order number' }, 'caller_left_brief', 'error', 'tester', 'tester', "tester: the caller left the scenario's brief (invented an order number)"],
  [{ event: 'silent', caller_messages: 3, tester_ended: true }, 'no_reply', 'error', 'agent', 'agent', 'agent: no reply to 3 caller messages'],
  [{ event: 'silent', caller_messages: 0, tester_ended: false }, 'not_answered', 'error', 'agent', 'agent', 'agent: did not answer the call'],
  [{ event: 'silent', caller_messages: 0, tester_ended: true }, 'tester_silent', 'error', 'tester', 'tester', 'tester: ended the conversation before it spoke'],
  [{ event: 'thrown', error: new JudgeError('invalid output (x)') }, 'judge_failed', 'error', 'judge', 'judge', 'judge: invalid output (x)'],
  [{ event: 'timeout', phase: 'judge', ms: 120000 }, 'judge_timeout', 'error', 'judge', 'judge', 'judge: no answer within 120000 ms'],
  [{ event: 'thrown', error: new TesterError('role flip') }, 'tester_failed', 'error', 'tester', 'tester', 'tester: role flip'],
  [{ event: 'no_tester' }, 'no_tester', 'error', 'tester', 'tester', NO_TESTER_MESSAGE],
  [provider('invalid_credentials', 401), 'provider_invalid_credentials', 'error', 'agent', 'provider', 'provider: 401 nope'],
  [provider('not_found', 404), 'provider_not_found', 'error', 'agent', 'provider', 'provider: 404 nope'],
  [provider('unreachable'), 'provider_unreachable', 'error', 'provider', 'provider', 'provider: nope'],
  [provider('timeout', 408), 'provider_timeout', 'error', 'provider', 'provider', 'provider: 408 nope'],
  [provider('rate_limited', 429), 'provider_rate_limited', 'error', 'provider', 'provider', 'provider: 429 nope'],
  [provider('provider_error', 502), 'provider_error', 'error', 'provider', 'provider', 'provider: 502 nope'],
  [{ event: 'timeout', phase: 'session_open', ms: 300 }, 'session_open_timeout', 'error', 'agent', 'timeout', 'timeout: opening the session exceeded 300 ms'],
  [{ event: 'timeout', phase: 'conversation', ms: 300 }, 'conversation_timeout', 'error', 'agent', 'timeout', 'timeout: conversation exceeded 300 ms'],
  [{ event: 'canceled' }, 'canceled', 'error', 'canceled', 'canceled', 'run canceled'],
  [{ event: 'thrown', error: new Error('disk full') }, 'internal', 'error', 'internal', 'internal', 'internal: disk full'],
  [{ event: 'thrown', error: 'a string' }, 'internal', 'error', 'internal', 'internal', 'internal: a string'],
  [{ event: 'scenario_missing' }, 'scenario_missing', 'error', 'internal', 'internal', 'internal: the scenario template no longer exists'],
  [{ event: 'agent_deleted' }, 'agent_deleted', 'error', 'canceled', 'provider', 'provider: the agent was deleted'],
  [{ event: 'no_adapter', provider: 'provider_9' }, 'no_adapter', 'error', 'internal', 'provider', 'provider: no adapter for provider_9 in this build'],
];

describe('decideOutcome', () => {
  it.each(CASES)('%j → %s', (event, kind, status, fault, side, message) => {
    expect(decideOutcome(event, 'tester_ended')).toMatchObject({ kind, status, fault, side, message, end_reason: 'tester_ended' });
  });

  it('retries exactly the faults that are not the agent\'s, unless another attempt would end the same way', () => {
    const retried = [...new Set(CASES.map(([event]) => decideOutcome(event)).filter(isRetried).map((o) => o.kind))].sort();
    expect(retried).toEqual(['caller_left_brief', 'grading_inconclusive', 'internal', 'judge_failed', 'judge_timeout',
      'provider_error', 'provider_rate_limited', 'provider_timeout', 'provider_unreachable', 'tester_failed', 'tester_silent']);
  });

  it('covers every outcome the engine can produce', () => {
    expect([...new Set(CASES.map((c) => c[1]))].sort()).toEqual([...OUTCOME_KINDS].sort());
  });

  it('only rejected credentials end the whole run, and a provider failure keeps its status', () => {
    for (const [event] of CASES) {
      const o = decideOutcome(event);
      expect(o.fatal).toBe(o.kind === 'provider_invalid_credentials' ? 'invalid_credentials' : null);
    }
    expect(decideOutcome(provider('rate_limited', 429)).provider_status).toBe(429);
    expect(decideOutcome(provider('unreachable')).provider_status).toBeNull();
    expect(decideOutcome({ event: 'canceled' }).end_reason).toBeNull();
  });
});
