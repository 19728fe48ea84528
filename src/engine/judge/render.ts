import { randomBytes } from 'node:crypto';
import type { ToolCall, TranscriptEntry } from '../types.js';

// One rendering of tool calls, shared by the judge's prompt, the deterministic checks' evidence and the
// evidence verifier, so that a quote of a tool call can be verified against exactly what was shown.

const asText = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null'));

/** `name(arguments)`: what a check quotes as evidence of a tool call. */
export const toolCallSignature = (tc: ToolCall): string => `${tc.name}(${asText(tc.arguments)})`;

/** `name(arguments) → result`: a tool call as a quote may cite it. */
export const renderToolCall = (tc: ToolCall): string => `${toolCallSignature(tc)} → ${asText(tc.result)}`;

/** The text a quote may come from: the entry's content, then one line per tool call. */
export function entryText(e: TranscriptEntry): string {
  if (!e.tool_calls || e.tool_calls.length === 0) return e.content;
  return [e.content, ...e.tool_calls.map(renderToolCall)].join('\n');
}

/**
 * A token drawn fresh for every judge call (64 random bits). Only lines carrying it start an entry or a tool
 * call, so an agent reply cannot forge a caller turn or a tool call: it never sees the token it would need.
 */
export function newEntryToken(transcript: readonly TranscriptEntry[]): string {
  for (;;) {
    const token = randomBytes(8).toString('hex');
    // Astronomically unlikely, but then the forgery would be real: draw again.
    if (!transcript.some((e) => entryText(e).includes(token))) return token;
  }
}

export const entryHeader = (token: string, index: number, role: string) => `<<entry ${token} #${index} ${role}>>`;
export const toolMarker = (token: string) => `<<tool ${token}>>`;

/** Every entry: its header line, its content verbatim (so quotes verify), then one marked line per tool call. */
export function renderJudgeTranscript(transcript: readonly TranscriptEntry[], token: string): string {
  return transcript
    .map((e, i) => {
      const lines = [entryHeader(token, i, e.role)];
      if (e.content !== '') lines.push(e.content);
      for (const tc of e.tool_calls ?? []) lines.push(`${toolMarker(token)} ${renderToolCall(tc)}`);
      return lines.join('\n');
    })
    .join('\n');
}

/** Assistant entries with something in them: the count the judge is told (and that grading reasons with). */
export const countAgentTurns = (transcript: readonly TranscriptEntry[]) =>
  transcript.filter((e) => e.role === 'assistant' && (e.content.trim() !== '' || (e.tool_calls?.length ?? 0) > 0)).length;
