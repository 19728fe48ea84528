import type { Decision, EvidenceQuote, RejectedQuote } from '../types.js';
import { droppedNote } from './evidence.js';

// How a judge criterion's answers (votes) become its decision. A NOT_MET or PARTIAL is a claim against the
// agent, so it is confirmed by fresh calls; quotes that are not in the transcript are not evidence, so a
// decision resting only on them is asked again once. Every call counts against the same budget of
// 1 + confirmations calls, so a criterion never costs more than that.

export const DISAGREED = 'the judge did not agree with itself';
export const NO_EVIDENCE = "the judge's evidence is not in the transcript";
export const DEFAULT_CONFIRMATIONS = 2;

export interface Vote {
  decision: Decision;
  rationale: string;
  kept: EvidenceQuote[];
  rejected: RejectedQuote[];
}

export interface Settled {
  decision: Decision;
  rationale: string;
  evidence: EvidenceQuote[];
  votes: Decision[];
  rejected_quotes: RejectedQuote[];
}

/** A decision that cites quotes of which none verifies. UNSURE decides nothing, so it cannot be fabricated. */
export const isFabricated = (v: Vote) => v.decision !== 'UNSURE' && v.kept.length === 0 && v.rejected.length > 0;

/** `ask` while the criterion needs another call; otherwise its decision. */
export function settle(votes: readonly Vote[], confirmations: number): 'ask' | Settled {
  const planned = 1 + confirmations;
  const canAsk = votes.length < planned;
  const valid = votes.filter((v) => !isFabricated(v));
  if (valid.length === 0) {
    // The first answer rested on invented quotes: one more chance, if there is a call left.
    return votes.length === 1 && canAsk ? 'ask' : unsure(votes, NO_EVIDENCE);
  }
  const [lead] = valid;
  // MET and UNSURE stand as first given (or as given by the re-ask that replaced a fabricated answer).
  if (lead.decision === 'MET' || lead.decision === 'UNSURE') return decide(votes, lead);

  const counts = new Map<Decision, number>();
  for (const v of valid) counts.set(v.decision, (counts.get(v.decision) ?? 0) + 1);
  const [best, bestCount] = [...counts].sort((a, b) => b[1] - a[1])[0];
  const majority = Math.floor(planned / 2) + 1;
  if (bestCount >= majority) {
    const agreeing = valid.filter((v) => v.decision === best);
    return decide(votes, agreeing.find((v) => v.kept.length > 0) ?? agreeing[0]);
  }
  if (canAsk && bestCount + (planned - votes.length) >= majority) return 'ask';
  // Every answer with evidence agreed, but invented quotes left it short of a majority.
  return unsure(votes, counts.size === 1 ? NO_EVIDENCE : DISAGREED);
}

function decide(votes: readonly Vote[], chosen: Vote): Settled {
  const note = droppedNote(chosen.rejected.map((r) => r.reason));
  return {
    decision: chosen.decision,
    rationale: note ? `${chosen.rationale.trim()} (${note})` : chosen.rationale.trim(),
    evidence: chosen.kept,
    votes: votes.map((v) => v.decision),
    rejected_quotes: allRejected(votes),
  };
}

function unsure(votes: readonly Vote[], rationale: string): Settled {
  return { decision: 'UNSURE', rationale, evidence: [], votes: votes.map((v) => v.decision), rejected_quotes: allRejected(votes) };
}

/** Every quote this criterion's answers cited that did not verify, each once. */
function allRejected(votes: readonly Vote[]): RejectedQuote[] {
  const seen = new Set<string>();
  const out: RejectedQuote[] = [];
  for (const r of votes.flatMap((v) => v.rejected)) {
    const key = JSON.stringify([r.turn, r.role, r.text]);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(r);
    }
  }
  return out;
}

/**
 * The order a confirmation round shows the criteria in (indices into the first call's order): never the
 * first call's own order when there are two or more, and varying between rounds where it can.
 */
export function confirmationOrder(count: number, round: number): number[] {
  const reversed = Array.from({ length: count }, (_, i) => count - 1 - i);
  // For three or more, no rotation of the reversed order is the original one; for two, one rotation is.
  if (count < 3) return reversed;
  const shift = (round - 1) % count;
  return [...reversed.slice(shift), ...reversed.slice(0, shift)];
}
