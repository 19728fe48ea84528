import { performance } from 'node:perf_hooks';
import type { Clock } from '../lib/clock.js';
import type { LagProbe } from '../lib/loop-lag.js';
import type { AgentReply, ProviderSession } from './provider.js';
import { completedTurns, turnDurations } from './metrics.js';
import { decideOutcome, RUN_CANCELED, type EndReason, type ErrorOutcome } from './outcome.js';
import type { Tester } from './tester/types.js';
import type { TranscriptEntry } from './types.js';

// Aborting only to stop a timer: a shared reason spares building a DOMException (with its stack) each time.
const DONE = new Error('done');

/** Ending the provider-side session must not hold a worker hostage. */
export const CLOSE_TIMEOUT_MS = 5000;

/** The outcome of a conversation that broke off, with what broke it. */
export type ConversationError = ErrorOutcome & { cause: unknown };

export interface ConversationOptions {
  session: ProviderSession;
  tester: Tester;
  maxTurns: number;
  timeoutMs: number;
  clock: Clock;
  signal: AbortSignal;
  /** This thread's event-loop lag: the uncertainty of replies timed here (absent: not measured, 0). */
  lag?: LagProbe;
  /** Told the uncertainty of every reply it times (admission control listens). */
  onReplyTimed?: (uncertaintyMs: number) => void;
  /** Called for every entry in order; entry n is persisted before entry n+1 is recorded. */
  onEntry?: (entry: TranscriptEntry, index: number) => Promise<void> | void;
}

export interface ConversationResult {
  transcript: TranscriptEntry[];
  end_reason: EndReason;
  error: ConversationError | null;
  turn_count: number;
  turn_durations_ms: number[];
  started_at: number;
  duration_ms: number;
  cost_usd: number | null;
  /**
   * The largest amount by which our own lag could have inflated a reply latency of this conversation (ms): the
   * timing thread's lag for replies timed there, this thread's lag for the others.
   */
  timing_uncertainty_ms: number;
}

/**
 * Settles with `p`, or rejects with the signal's reason as soon as it aborts, so a provider or tester that
 * ignores its signal still cannot keep a canceled conversation alive.
 */
export function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

export interface Deadline {
  /** Aborts on the parent's abort (reason: RUN_CANCELED) or when the time is up (reason: the timeout message). */
  signal: AbortSignal;
  timedOut(): boolean;
  /** Stops the timer and unlinks from the parent; call it once the guarded work is over. */
  dispose(): void;
}

/** One signal for the run's cancel and a deadline measured on the injected clock. */
export function linkDeadline(parent: AbortSignal, ms: number, clock: Clock, timeoutMessage: string): Deadline {
  const ctl = new AbortController();
  let timedOut = false;
  const onCancel = () => ctl.abort(new Error(RUN_CANCELED));
  if (parent.aborted) onCancel();
  else parent.addEventListener('abort', onCancel, { once: true });
  clock.sleep(ms, ctl.signal).then(
    () => {
      timedOut = true;
      ctl.abort(new Error(timeoutMessage));
    },
    () => undefined,
  );
  return {
    signal: ctl.signal,
    timedOut: () => timedOut,
    dispose: () => {
      parent.removeEventListener('abort', onCancel);
      if (!ctl.signal.aborted) ctl.abort(DONE);
    },
  };
}

export async function runConversation(opts: ConversationOptions): Promise<ConversationResult> {
  const { session, tester, clock } = opts;
  const startedAt = clock.now();
  const iso = (ms: number) => new Date(ms).toISOString();
  const transcript: TranscriptEntry[] = [];
  const durations: number[] = [];
  let uncertainty = 0;

  // One signal for everything in flight: the run's cancel and this conversation's deadline.
  const timeout = decideOutcome({ event: 'timeout', phase: 'conversation', ms: opts.timeoutMs }, 'timeout');
  const deadline = linkDeadline(opts.signal, opts.timeoutMs, clock, timeout.message);
  const sig = deadline.signal;

  // Each write overlaps the next remote call instead of adding to the turn's latency; awaiting the previous
  // write before the next record keeps them ordered and surfaces a failure within one step.
  let persisting: Promise<void> = Promise.resolve();
  const record = (entry: TranscriptEntry) => {
    const index = transcript.push(entry) - 1;
    if (!opts.onEntry) return;
    const onEntry = opts.onEntry;
    persisting = persisting.then(() => onEntry(entry, index));
    persisting.catch(() => undefined); // observed at the next await; never an unhandled rejection meanwhile
  };
  const agentEntry = (reply: AgentReply, at: number, latency: number | null): TranscriptEntry => ({
    role: 'assistant',
    content: reply.content,
    timestamp: iso(at),
    ...(reply.tool_calls.length ? { tool_calls: reply.tool_calls } : {}),
    latency_ms: latency,
  });

  let endReason: EndReason = 'max_turns';
  let error: ConversationError | null = null;
  try {
    const greeting = await raceAbort(session.greeting(sig), sig);
    if (greeting && (greeting.content.trim() !== '' || greeting.tool_calls.length > 0)) record(agentEntry(greeting, clock.now(), null));
    if (greeting?.ended) endReason = 'agent_ended';
    else {
      for (let turn = 0; turn < opts.maxTurns; turn++) {
        const next = await raceAbort(tester.next(transcript, sig), sig);
        await persisting;
        if (next.kind === 'end') {
          endReason = 'tester_ended';
          break;
        }
        const sentAt = clock.now();
        const sentPerf = performance.now();
        record({ role: 'user', content: next.content, timestamp: iso(sentAt) });
        const reply = await raceAbort(session.send(next.content, sig), sig);
        const at = clock.now();
        // A reply timed on the wire drops the time we took to hear of it; one timed here carries this loop's lag.
        const latency = reply.timing ? Math.max(0, Math.round(at - sentAt - reply.timing.overhead_ms)) : at - sentAt;
        const u = reply.timing ? reply.timing.lag_ms : (opts.lag?.maxBetween(sentPerf, performance.now()) ?? 0);
        uncertainty = Math.max(uncertainty, u);
        opts.onReplyTimed?.(u);
        await persisting;
        record(agentEntry(reply, at, latency));
        durations.push(latency);
        if (reply.ended) {
          endReason = 'agent_ended';
          break;
        }
      }
      // a script that runs out exactly at the cap was not cut off
      if (endReason === 'max_turns' && tester.remaining?.() === 0) endReason = 'tester_ended';
    }
    await persisting;
  } catch (err) {
    endReason = opts.signal.aborted ? 'canceled' : deadline.timedOut() ? 'timeout' : 'error';
    const outcome = endReason === 'canceled' ? decideOutcome({ event: 'canceled' }, endReason)
      : endReason === 'timeout' ? timeout
      : decideOutcome({ event: 'thrown', error: err }, endReason);
    error = { ...outcome, cause: err };
  } finally {
    deadline.dispose();
  }
  // The caller may write the final status next; no entry write may still be in flight then.
  await persisting.catch(() => undefined);

  const reason = error === null ? 'completed' : error.side === 'canceled' ? 'canceled' : 'error';
  const closeCtl = new AbortController();
  // A provider that reads its post-call record on hang-up may ask for longer, but only after a completed
  // conversation: a canceled one must let go of the worker promptly.
  const closeBudget = reason === 'completed' ? Math.max(CLOSE_TIMEOUT_MS, session.closeTimeoutMs ?? 0) : CLOSE_TIMEOUT_MS;
  await Promise.race([
    session.close(reason).catch(() => undefined), // a failed hang-up does not change what the agent said
    clock.sleep(closeBudget, closeCtl.signal).catch(() => undefined),
  ]);
  closeCtl.abort(DONE);

  // The provider's own record replaces the live transcript where it has one (ProviderSession.transcriptOverride),
  // e.g. a voice call that ran as a single step, or tool results only the post-call record carries.
  let finalTranscript = transcript;
  let finalDurations = durations;
  if (session.transcriptOverride) {
    try {
      const override = session.transcriptOverride(transcript);
      if (override) {
        finalTranscript = override;
        finalDurations = turnDurations(override);
      }
    } catch {
      // a record we cannot read leaves the live transcript as it is
    }
  }

  // a call the platform ran as one step ends as its own record says
  if (error === null && session.endReason) {
    try {
      endReason = session.endReason() ?? endReason;
    } catch {
      // an unreadable record keeps the engine's reason
    }
  }

  let cost: number | null = null;
  try {
    cost = session.costUsd();
  } catch {
    cost = null;
  }
  return {
    transcript: finalTranscript,
    end_reason: endReason,
    error,
    turn_count: completedTurns(finalTranscript),
    turn_durations_ms: finalDurations,
    started_at: startedAt,
    duration_ms: clock.now() - startedAt,
    cost_usd: cost,
    timing_uncertainty_ms: Math.round(uncertainty),
  };
}
