import type { EvidenceQuote, RejectedQuote, TranscriptEntry } from '../types.js';
import { entryText } from './render.js';

/**
 * Only whitespace and typographic quotes may differ between a quote and its entry: models routinely
 * "fix" both, and neither changes what was said. Everything else (case, punctuation, words) must match.
 */
export function normalizeForQuote(s: string): string {
  return s
    .replace(/[\u2018\u2019\u201A\u201B\u2032]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F\u2033]/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface QuoteVerification {
  kept: EvidenceQuote[];
  /** Each dropped quote with why, e.g. "not found in turn 3". */
  rejected: RejectedQuote[];
  /** Just the reasons, in the same order. */
  dropped: string[];
}

export function verifyQuotes(quotes: readonly EvidenceQuote[], transcript: readonly TranscriptEntry[]): QuoteVerification {
  const kept: EvidenceQuote[] = [];
  const rejected: RejectedQuote[] = [];
  const normalized = new Map<number, string>();
  const reject = (q: EvidenceQuote, reason: string) => rejected.push({ turn: q.turn, role: q.role, text: q.text ?? '', reason });
  for (const q of quotes) {
    const entry = Number.isInteger(q.turn) ? transcript[q.turn] : undefined;
    const text = normalizeForQuote(q.text ?? '');
    if (!entry) {
      reject(q, `turn ${q.turn} does not exist`);
    } else if (entry.role !== q.role) {
      reject(q, `role mismatch in turn ${q.turn}`);
    } else if (text === '') {
      reject(q, `empty quote for turn ${q.turn}`);
    } else {
      let hay = normalized.get(q.turn);
      if (hay === undefined) normalized.set(q.turn, (hay = normalizeForQuote(entryText(entry))));
      if (hay.includes(text)) kept.push(q);
      else reject(q, `not found in turn ${q.turn}`);
    }
  }
  return { kept, rejected, dropped: rejected.map((r) => r.reason) };
}

/** "1 quote dropped: not found in turn 3", or null when nothing was dropped. */
export function droppedNote(dropped: readonly string[]): string | null {
  if (dropped.length === 0) return null;
  return `${dropped.length} quote${dropped.length === 1 ? '' : 's'} dropped: ${dropped.join('; ')}`;
}
