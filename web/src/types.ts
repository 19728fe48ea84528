// The shapes of the public API (/api/v1) the dashboard reads: a hand-kept subset of the OpenAPI document.

export type RunStatus = 'pending' | 'running' | 'grading' | 'completed' | 'failed' | 'canceled';
export const FINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'canceled'];
export const isFinal = (s: string) => (FINAL_RUN_STATUSES as readonly string[]).includes(s);

export interface RunMetrics {
  time_to_first_response_ms: number | null;
  average_turn_duration_ms: number | null;
  total_duration_ms: number | null;
  cost_usd: number | null;
  turn_count: number | null;
  p50_turn_duration_ms: number | null;
  p95_turn_duration_ms: number | null;
  total_cost_usd: number | null;
}

export interface ScenarioMetrics {
  time_to_first_response_ms: number | null;
  average_turn_duration_ms: number | null;
  total_duration_ms: number | null;
  cost_usd: number | null;
  turn_count: number;
}

export interface Run {
  id: string;
  test_run_id: string;
  name: string;
  status: RunStatus;
  agent_id: string;
  agent_name: string;
  pass_rate: number;
  passed_count: number;
  failed_count: number;
  error_count: number;
  total_scenarios: number;
  started_at: string;
  completed_at: string | null;
  duration_seconds: number | null;
  test_suite_id: string | null;
  test_mode: 'demo' | 'full';
  max_turns: number;
  created_at: string;
  error_message: string | null;
  metrics: RunMetrics | null;
}

export interface ScenarioResult {
  id: string;
  scenario_id: string;
  scenario_name: string;
  status: 'passed' | 'failed' | 'error' | 'pending' | 'running' | 'grading';
  passed: boolean;
  grade_summary: string | null;
  error_message: string | null;
  duration_ms: number | null;
  metrics: ScenarioMetrics | null;
}

export interface RunResults extends Run {
  results: ScenarioResult[];
  results_total: number;
  results_limit: number;
  results_offset: number;
}

export interface ToolCall { id: string; name: string; arguments: unknown; result: unknown }

export interface TranscriptEntry {
  role: 'user' | 'assistant';
  content: string;
  timestamp: string;
  tool_calls?: ToolCall[];
  latency_ms?: number | null;
}

export interface EvidenceQuote { turn: number; role: string; text: string }

export interface CriterionResult {
  criterion: string;
  decision: 'MET' | 'NOT_MET' | 'PARTIAL' | 'UNSURE';
  points_awarded: number;
  max_points: number;
  rationale: string;
  evidence_quotes?: EvidenceQuote[];
  required?: boolean;
  graded_by?: 'check' | 'judge';
}

export interface ScenarioRun {
  id: string;
  test_run_id: string;
  scenario_id: string;
  scenario_name: string;
  status: ScenarioResult['status'];
  passed: boolean | null;
  grade_summary: string | null;
  error_message: string | null;
  duration_ms: number | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  criteria_results: CriterionResult[];
  transcript: TranscriptEntry[];
  metrics: ScenarioMetrics | null;
  tester_model: string | null;
  judge_model: string | null;
  attempts: number;
}

export interface Agent {
  id: string;
  provider: string;
  name: string;
  description: string | null;
  is_active: boolean;
  config_fields: string[];
  created_at: string;
  updated_at: string;
}

export type Check =
  | { type: 'contains' | 'not_contains' | 'regex' | 'not_regex'; value: string; role?: 'assistant' | 'user' }
  | { type: 'tool_called' | 'tool_not_called'; name: string; arguments?: Record<string, unknown> }
  | { type: 'max_turns' | 'max_response_ms'; value: number }
  | { type: 'responded_every_turn' };

export interface Criterion { criterion: string; max_points: number; required: boolean; check: Check | null }

export interface Scenario {
  id: string;
  name: string;
  description: string | null;
  category: string | null;
  tags: string[];
  persona: string | null;
  goal: string | null;
  instructions: string | null;
  opening_message: string | null;
  script: string[];
  criteria: Criterion[];
  pass_threshold: number;
  max_turns: number | null;
  is_builtin: boolean;
  created_at: string;
  updated_at: string;
}

export interface TestSuite {
  id: string;
  name: string;
  description: string | null;
  scenario_count: number;
  scenario_ids: string[];
  is_default: boolean;
  created_at: string;
  updated_at: string;
}

export const WEBHOOK_EVENTS = ['test_run_completed', 'test_run_failed', 'test_run_canceled'] as const;

export interface Webhook {
  id: string;
  url: string;
  description: string | null;
  agent_id: string | null;
  events: string[];
  is_active: boolean;
  disabled_reason?: string | null;
  created_at: string;
  updated_at: string;
}

export interface Delivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: number;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface DeliveryAttempt {
  attempt: number;
  trigger: 'automatic' | 'redeliver' | 'test';
  attempted_at: string;
  response_status: number | null;
  response_body: string | null;
  duration_ms: number;
  error: string | null;
}

export interface DeliveryDetail extends Delivery { payload: Record<string, unknown>; attempts: DeliveryAttempt[] }

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  last_four: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

export interface Session {
  organization: { id: string; name: string };
  api_key: { id: string; name: string; prefix: string; last_four: string; expires_at: string | null };
  created_at: string;
  expires_at: string;
}

export interface ValidationResult { valid: boolean; message: string; details: Record<string, unknown> }

