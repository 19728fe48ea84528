import type { ToolCall, TranscriptEntry } from '../types.js';

// One rendering of tool calls, shared by the judge's prompt, the deterministic checks' evidence and the
// evidence verifier, so that a quote of a tool call can be verified against exactly what was shown.

const asText = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null'));

/** `name(arguments)`: what a check quotes as evidence of a tool call. */
export const toolCallSignature = (tc: ToolCall): string => `${tc.name}(${asText(tc.arguments)})`;

export const renderToolCall = (tc: ToolCall): string => `[tool call] ${toolCallSignature(tc)} → ${asText(tc.result)}`;

/** The text a quote may come from: the entry's content, then one line per tool call. */
export function entryText(e: TranscriptEntry): string {
  if (!e.tool_calls || e.tool_calls.length === 0) return e.content;
  return [e.content, ...e.tool_calls.map(renderToolCall)].join('\n');
}
