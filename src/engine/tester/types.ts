import type { TranscriptEntry } from '../types.js';

export type TesterTurn = { kind: 'message'; content: string } | { kind: 'end'; reason: string };

/** The simulated caller. */
export interface Tester {
  /** The LLM playing the caller; null for a scripted tester. */
  readonly model: string | null;
  next(transcript: readonly TranscriptEntry[], signal: AbortSignal): Promise<TesterTurn>;
  /** Script lines not said yet; absent when the tester cannot tell (an LLM playing a goal). */
  remaining?(): number;
}

/** A failure of the simulated caller; the message is what the scenario run's error_message shows. */
export class TesterError extends Error {
  constructor(message: string, opts?: { cause?: unknown }) {
    super(`tester: ${message}`, opts);
    this.name = 'TesterError';
  }
}
