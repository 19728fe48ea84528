import { Type, type Static } from '@sinclair/typebox';

// The vocabulary shared by the scenario library, the engine and the API responses.
// One TypeBox schema per shape: validation, OpenAPI and the TS type come from the same place.

export const Check = Type.Union([
  Type.Object({
    type: Type.Union([Type.Literal('contains'), Type.Literal('not_contains'), Type.Literal('regex'), Type.Literal('not_regex')]),
    value: Type.String({ minLength: 1, maxLength: 2000 }),
    role: Type.Optional(Type.Union([Type.Literal('assistant'), Type.Literal('user')])),
  }, { additionalProperties: false }),
  Type.Object({
    type: Type.Union([Type.Literal('tool_called'), Type.Literal('tool_not_called')]),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  }, { additionalProperties: false }),
  Type.Object({
    type: Type.Union([Type.Literal('max_turns'), Type.Literal('max_response_ms')]),
    value: Type.Integer({ minimum: 1 }),
  }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('responded_every_turn') }, { additionalProperties: false }),
]);
export type Check = Static<typeof Check>;

export const CriterionInput = Type.Object({
  criterion: Type.String({ minLength: 1, maxLength: 2000 }),
  max_points: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1000 })),
  required: Type.Optional(Type.Boolean()),
  check: Type.Optional(Type.Union([Check, Type.Null()])),
}, { additionalProperties: false });
export type CriterionInput = Static<typeof CriterionInput>;

/** A criterion with defaults applied (max_points 1, required false, check null). */
export interface Criterion {
  criterion: string;
  max_points: number;
  required: boolean;
  check: Check | null;
}

export function normalizeCriterion(c: CriterionInput): Criterion {
  return { criterion: c.criterion, max_points: c.max_points ?? 1, required: c.required ?? false, check: c.check ?? null };
}

export const ToolCall = Type.Object({
  id: Type.String(),
  name: Type.String(),
  arguments: Type.Unknown(),
  result: Type.Unknown(),
});
export type ToolCall = Static<typeof ToolCall>;

export const TranscriptEntry = Type.Object({
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]),
  content: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
  tool_calls: Type.Optional(Type.Array(ToolCall)),
  latency_ms: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
});
export type TranscriptEntry = Static<typeof TranscriptEntry>;

export const Decision = Type.Union([Type.Literal('MET'), Type.Literal('NOT_MET'), Type.Literal('PARTIAL'), Type.Literal('UNSURE')]);
export type Decision = Static<typeof Decision>;

export const EvidenceQuote = Type.Object({
  turn: Type.Integer({ description: 'Index of the cited transcript entry (0-based)' }),
  role: Type.String(),
  text: Type.String(),
});
export type EvidenceQuote = Static<typeof EvidenceQuote>;

export const RejectedQuote = Type.Object({
  turn: Type.Integer({ description: 'The transcript entry the judge cited (0-based)' }),
  role: Type.String(),
  text: Type.String({ description: 'The quote as the judge wrote it' }),
  reason: Type.String({ description: 'Why it did not verify, e.g. "not found in turn 3"' }),
});
export type RejectedQuote = Static<typeof RejectedQuote>;

export const CriterionResult = Type.Object({
  criterion: Type.String(),
  decision: Decision,
  points_awarded: Type.Number(),
  max_points: Type.Number(),
  rationale: Type.String(),
  evidence_quotes: Type.Optional(Type.Array(EvidenceQuote)),
  required: Type.Optional(Type.Boolean()),
  graded_by: Type.Optional(Type.Union([Type.Literal('check'), Type.Literal('judge')])),
  votes: Type.Optional(Type.Array(Decision, {
    description: 'The decisions behind this one, in the order they were made: one for a deterministic check or an unconfirmed judge decision, '
      + 'more when a NOT_MET or PARTIAL was confirmed or fabricated evidence re-asked; empty when no judge answered',
  })),
  rejected_quotes: Type.Optional(Type.Array(RejectedQuote, { description: 'Quotes the judge cited that are not in the transcript (they decide nothing)' })),
});
export type CriterionResult = Static<typeof CriterionResult>;

export const ScenarioMetrics = Type.Object({
  time_to_first_response_ms: Type.Union([Type.Number(), Type.Null()]),
  average_turn_duration_ms: Type.Union([Type.Number(), Type.Null()]),
  total_duration_ms: Type.Union([Type.Number(), Type.Null()]),
  cost_usd: Type.Union([Type.Number(), Type.Null()]),
  turn_count: Type.Integer(),
});
export type ScenarioMetrics = Static<typeof ScenarioMetrics>;

export const RunMetrics = Type.Object({
  time_to_first_response_ms: Type.Union([Type.Number(), Type.Null()]),
  average_turn_duration_ms: Type.Union([Type.Number(), Type.Null()]),
  total_duration_ms: Type.Union([Type.Number(), Type.Null()]),
  cost_usd: Type.Union([Type.Number(), Type.Null()]),
  turn_count: Type.Union([Type.Number(), Type.Null()]),
  p50_turn_duration_ms: Type.Union([Type.Number(), Type.Null()]),
  p95_turn_duration_ms: Type.Union([Type.Number(), Type.Null()]),
  total_cost_usd: Type.Union([Type.Number(), Type.Null()]),
});
export type RunMetrics = Static<typeof RunMetrics>;

/**
 * What a tool check needs to know of the agent under test: the tools it has (`null`: unknown, `[]`: none)
 * and how the templates' tool names map onto them (`null`: the agent has no such tool).
 */
export interface AgentTools {
  tool_names: string[] | null;
  tool_aliases: Record<string, string | null>;
}

export const UNKNOWN_TOOLS: AgentTools = { tool_names: null, tool_aliases: {} };

/** What the engine needs of a scenario template. */
export interface ScenarioSpec {
  id: string;
  name: string;
  persona: string | null;
  goal: string | null;
  instructions: string | null;
  opening_message: string | null;
  script: string[];
  criteria: Criterion[];
  pass_threshold: number;
  max_turns: number | null;
}
