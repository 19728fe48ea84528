import type { ReactNode } from 'react';
import { fmtMs, fmtTime, pretty } from '../format';
import type { EvidenceQuote, TranscriptEntry } from '../types';

export interface ActiveQuote { turn: number; text: string }

/** Ranges of `content` that quotes cite (verbatim, else case-insensitively), merged where they overlap. */
function quoteRanges(content: string, quotes: string[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const q of quotes) {
    if (!q) continue;
    let at = content.indexOf(q);
    if (at < 0) at = content.toLowerCase().indexOf(q.toLowerCase());
    if (at >= 0) ranges.push([at, at + q.length]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([...r]);
  }
  return merged;
}

function highlighted(content: string, quotes: string[], active: string | null): ReactNode {
  const ranges = quoteRanges(content, quotes);
  if (ranges.length === 0) return content;
  const out: ReactNode[] = [];
  let pos = 0;
  ranges.forEach(([start, end], i) => {
    if (start > pos) out.push(content.slice(pos, start));
    const text = content.slice(start, end);
    const isActive = active !== null && text.toLowerCase().includes(active.toLowerCase());
    out.push(<mark key={i} className={isActive ? 'evidence current' : 'evidence'}>{text}</mark>);
    pos = end;
  });
  if (pos < content.length) out.push(content.slice(pos));
  return out;
}

export const turnElementId = (i: number) => `turn-${i}`;

export function Transcript({ entries, quotes, active }: { entries: TranscriptEntry[]; quotes: EvidenceQuote[]; active: ActiveQuote | null }) {
  if (entries.length === 0) return <p className="muted">No transcript: the conversation did not start.</p>;
  return (
    <ol className="transcript" aria-label="Transcript">
      {entries.map((e, i) => {
        const cited = quotes.filter((q) => q.turn === i).map((q) => q.text);
        const isActive = active?.turn === i;
        const who = e.role === 'user' ? 'Caller (simulated)' : 'Agent';
        return (
          <li key={i} id={turnElementId(i)} tabIndex={-1}
            className={`bubble ${e.role}${cited.length ? ' cited' : ''}${isActive ? ' active' : ''}`}>
            <div className="bubble-meta">
              <span className="who">{who}</span>
              <span className="turn-no">#{i}</span>
              {cited.length > 0 && <span className="sr-only">cited as evidence</span>}
              <time dateTime={e.timestamp}>{fmtTime(e.timestamp)}</time>
              {e.role === 'assistant' && e.latency_ms != null && <span className="latency" title="time from the caller's message to this reply">replied in {fmtMs(e.latency_ms)}</span>}
            </div>
            <p className="content">{highlighted(e.content, cited, isActive ? active.text : null)}</p>
            {e.tool_calls && e.tool_calls.length > 0 && (
              <div className="tool-calls">
                {e.tool_calls.map((tc) => (
                  <div className="tool-call" key={tc.id}>
                    <div className="tool-name">Tool call <code>{tc.name}</code></div>
                    <div className="tool-io">
                      <div><span className="label">Arguments</span><pre>{pretty(tc.arguments)}</pre></div>
                      <div><span className="label">Result</span><pre>{tc.result === undefined || tc.result === null ? '—' : pretty(tc.result)}</pre></div>
                    </div>
                  </div>
                ))}
              </div>
            )}
          </li>
        );
      })}
    </ol>
  );
}
