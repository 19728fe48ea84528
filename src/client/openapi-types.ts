// Generated from GET /api/v1/openapi.json by test/client/openapi.test.ts. Do not edit by hand:
// after changing a route, regenerate with `npm run client:types` and add a client method for any new operation.
/* eslint-disable */

export interface ApiKey {
  id: string;
  name: string;
  /** sk_live_ and the first 4 characters */
  prefix: string;
  last_four: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

export interface Agent {
  id: string;
  provider: "provider_1" | "provider_2" | "provider_3" | "provider_4" | "provider_5" | "provider_6";
  name: string;
  description: string | null;
  is_active: boolean;
  /** Names of the config fields that are set; values are never returned */
  config_fields: string[];
  /** The agent's tool names; null = unknown, [] = no tools. Default: the names in config.tools for provider_4, otherwise null. A tool check on a name the agent neither has nor called stays UNSURE. */
  tool_names: string[] | null;
  /** Template tool name → this agent's tool name, or null for "this agent has no such tool". Default {}. */
  tool_aliases: Record<string, string | null>;
  created_at: string;
  updated_at: string;
}

export interface Run {
  id: string;
  test_run_id: string;
  name: string;
  status: "pending" | "running" | "grading" | "completed" | "failed" | "canceled";
  agent_id: string;
  agent_name: string;
  /** 100 × passed / (passed + failed), 2 decimals; 0 when nothing was graded */
  pass_rate: number;
  passed_count: number;
  failed_count: number;
  error_count: number;
  /** Scenario runs with at least one criterion a person reviewed (not reviews, not criteria) */
  reviewed_count: number;
  total_scenarios: number;
  started_at: string;
  completed_at: string | null;
  duration_seconds: number | null;
  test_suite_id: string | null;
  test_mode: "demo" | "full";
  max_turns: number;
  created_at: string;
  error_message: string | null;
  metrics: {
    time_to_first_response_ms: number | null;
    average_turn_duration_ms: number | null;
    total_duration_ms: number | null;
    cost_usd: number | null;
    turn_count: number | null;
    p50_turn_duration_ms: number | null;
    p95_turn_duration_ms: number | null;
    total_cost_usd: number | null;
  } | null;
  /** Final scenario runs by fault */
  faults: {
    agent: number;
    tester: number;
    judge: number;
    provider: number;
    internal: number;
    canceled: number;
  };
  /** Scenario runs with at least one attempt that did not count */
  retried_count: number;
  /** Final scenario runs in error with fault agent (timeouts, hang-ups, no reply, unusable answers) */
  agent_error_count: number;
  strict_pass_rate: number | null;
  /** 100 × (passed + failed + agent_error_count) / total_scenarios, 2 decimals */
  coverage: number;
  /** What could make this run's verdicts mean less than they seem (no judge model, scripts cut off by max_turns, tool names the agent does not resolve, the demo judge: computed when the run was created; reply latencies whose timing uncertainty exceeded 50 ms: added as conversations finish), [] when none */
  warnings: string[];
  /** The largest amount (ms) by which Rehearsal's own load could have inflated a reply latency of this run: the worst event-loop lag of the thread that timed its replies while its conversations were in flight; null until a conversation has finished */
  timing_uncertainty_ms: number | null;
  /** How many times each selected scenario runs; total_scenarios = scenario_count × repeats */
  repeats: number;
  /** Distinct scenarios in the run */
  scenario_count: number;
  /** The run this one is compared with by default (GET /runs/{id}/comparison) */
  baseline_run_id: string | null;
  stats: {
    /** Scenarios whose graded repetitions both passed and failed */
    flaky_count: number;
    /** Scenarios that passed every repetition (pass^k) */
    pass_all_count: number;
    /** 95 % interval of pass_rate that treats a scenario's repetitions as correlated: the Wilson interval on the effective sample size n / (1 + (m − 1)·ICC), m the mean repetitions per scenario and ICC their intra-cluster correlation (one-way ANOVA estimate); null when nothing was graded */
    pass_rate_ci: {
      low: number;
      high: number;
    } | null;
  };
}

export interface ScenarioAggregate {
  scenario_id: string;
  scenario_name: string;
  /** The scenario's repetitions in this run = passed + failed + error + pending */
  attempts: number;
  passed: number;
  failed: number;
  error: number;
  /** Repetitions not final yet */
  pending: number;
  /** 100 × passed / (passed + failed), 2 decimals; null when nothing was graded */
  pass_rate: number | null;
  /** pass^k: every repetition finished, none errored, all passed */
  pass_all: boolean;
  /** 95 % Wilson interval of pass_rate in percent; null when nothing was graded */
  pass_rate_ci: {
    low: number;
    high: number;
  } | null;
  verdict: "pending" | "error" | "pass" | "fail" | "flaky";
  /** Per criterion of the template, decisions counted over graded repetitions */
  criteria: Array<{
    criterion_index: number;
    criterion: string;
    met: number;
    partial: number;
    not_met: number;
    unsure: number;
  }>;
}

export interface Review {
  id: string;
  criterion_index: number;
  decision: "MET" | "PARTIAL" | "NOT_MET";
  note: string | null;
  judge_decision: "MET" | "NOT_MET" | "PARTIAL" | "UNSURE";
  reviewer: {
    api_key_id: string;
    /** The API key's name when the review was written */
    name: string;
  };
  created_at: string;
}

export interface Scenario {
  id: string;
  slug: string | null;
  /** "files" for what `rehearsal sync` made */
  source: "builtin" | "api" | "files";
  name: string;
  description: string | null;
  category: string | null;
  tags: string[];
  persona: string | null;
  goal: string | null;
  instructions: string | null;
  opening_message: string | null;
  /** Tester lines used when no tester model is configured */
  script: string[];
  criteria: Array<{
    criterion: string;
    max_points: number;
    required: boolean;
    check: {
      type: "contains" | "not_contains" | "regex" | "not_regex";
      value: string;
      role?: "assistant" | "user";
    } | {
      type: "tool_called" | "tool_not_called";
      name: string;
      arguments?: Record<string, unknown>;
    } | {
      type: "max_turns" | "max_response_ms";
      value: number;
    } | {
      type: "responded_every_turn";
    } | null;
  }>;
  pass_threshold: number;
  max_turns: number | null;
  /** Built-in templates are shared by every organization and read-only */
  is_builtin: boolean;
  created_at: string;
  updated_at: string;
}

export interface TestSuite {
  id: string;
  name: string;
  description: string | null;
  scenario_count: number;
  /** Scenario template ids in run order */
  scenario_ids: string[];
  /** The suite POST /runs uses when test_suite_id is absent */
  is_default: boolean;
  /** "files" for what `rehearsal sync` made */
  source: "api" | "files";
  created_at: string;
  updated_at: string;
}

export interface Webhook {
  id: string;
  url: string;
  description: string | null;
  agent_id: string | null;
  events: Array<"test_run_completed" | "test_run_failed" | "test_run_canceled" | "test_run_regressed">;
  is_active: boolean;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event: "test_run_completed" | "test_run_failed" | "test_run_canceled" | "test_run_regressed" | "ping";
  /** pending while automatic attempts remain; succeeded after a 2xx; failed when attempts ran out */
  status: "pending" | "succeeded" | "failed";
  /** Attempts made so far, automatic and manual */
  attempt_count: number;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveryAttempt {
  /** 1, 2, … in the order made */
  attempt: number;
  trigger: "automatic" | "redeliver" | "test";
  attempted_at: string;
  response_status: number | null;
  response_body: string | null;
  duration_ms: number;
  error: string | null;
}

export interface Schedule {
  id: string;
  agent_id: string;
  test_suite_id: string | null;
  cron: string;
  timezone: string;
  test_mode: string;
  max_scenarios: number | null;
  max_turns: number | null;
  repeats: number | null;
  baseline: string;
  is_active: boolean;
  last_run_id: string | null;
  next_run_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Every error answer: { error, code, details? } */
export interface ErrorBody {
  /** A message for people */
  error: string;
  /** What went wrong, for programs */
  code: "MISSING_REQUIRED_FIELD" | "INVALID_FIELD_VALUE" | "INVALID_JSON" | "BAD_REQUEST" | "UNAUTHORIZED" | "FORBIDDEN" | "AGENT_NOT_FOUND" | "RUN_NOT_FOUND" | "SCENARIO_RUN_NOT_FOUND" | "NOT_FOUND" | "METHOD_NOT_ALLOWED" | "ALREADY_EXISTS" | "INVALID_STATE" | "IDEMPOTENCY_CONFLICT" | "PAYLOAD_TOO_LARGE" | "RATE_LIMITED" | "HEADERS_TOO_LARGE" | "INTERNAL_ERROR";
  /** For a field error: the field (and, where safe, the value) */
  details?: Record<string, unknown>;
}

export interface Operations {
  /** List active API keys (never the keys themselves) */
  "GET /api/v1/api-keys": {
    params: Record<string, never>;
    query: {
      /** Page size; values above the maximum are clamped */
      limit?: number;
      /** Items to skip */
      offset?: number;
    };
    body: never;
    /** HTTP 200 */
    response: {
      api_keys: ApiKey[];
      total: number;
      limit: number;
      offset: number;
    };
  };
  /** Create an API key (the key is shown only in this response) */
  "POST /api/v1/api-keys": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
      expires_at?: string | null;
    };
    /** HTTP 201 */
    response: {
      id: string;
      name: string;
      /** sk_live_ and the first 4 characters */
      prefix: string;
      last_four: string;
      created_at: string;
      expires_at: string | null;
      last_used_at: string | null;
      key: string;
    };
  };
  /** Revoke an API key; it stops working on the next request */
  "DELETE /api/v1/api-keys/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 204 */
    response: void;
  };
  /** List agents */
  "GET /api/v1/agents": {
    params: Record<string, never>;
    query: {
      provider?: string;
      /** Page size; values above the maximum are clamped */
      limit?: number;
      /** Items to skip */
      offset?: number;
    };
    body: never;
    /** HTTP 200 */
    response: {
      agents: Agent[];
      total: number;
      limit: number;
      offset: number;
    };
  };
  /** Register an agent */
  "POST /api/v1/agents": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      provider: string;
      name: string;
      description?: string | null;
      /** Provider-specific configuration (see docs/providers.md); write-only */
      config: unknown;
      /** The agent's tool names; null = unknown, [] = no tools. Default: the names in config.tools for provider_4, otherwise null. A tool check on a name the agent neither has nor called stays UNSURE. */
      tool_names?: string[] | null;
      /** Template tool name → this agent's tool name, or null for "this agent has no such tool". Default {}. */
      tool_aliases?: Record<string, string | null>;
    };
    /** HTTP 201 */
    response: Agent;
  };
  /** Get an agent */
  "GET /api/v1/agents/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 200 */
    response: Agent;
  };
  /** Update an agent (config is replaced whole; provider cannot change) */
  "PUT /api/v1/agents/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      provider?: string;
      name?: string;
      description?: string | null;
      /** Provider-specific configuration (see docs/providers.md); write-only */
      config?: unknown;
      is_active?: boolean;
      /** The agent's tool names; null = unknown, [] = no tools. Default: the names in config.tools for provider_4, otherwise null. A tool check on a name the agent neither has nor called stays UNSURE. */
      tool_names?: string[] | null;
      /** Template tool name → this agent's tool name, or null for "this agent has no such tool". Default {}. */
      tool_aliases?: Record<string, string | null>;
    };
    /** HTTP 200 */
    response: Agent;
  };
  /** Delete an agent permanently; its in-flight runs are canceled */
  "DELETE /api/v1/agents/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 204 */
    response: void;
  };
  /** Check the agent's credentials with the provider's cheapest call */
  "POST /api/v1/agents/{id}/validate": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 200 */
    response: {
      valid: boolean;
      message: string;
      details: Record<string, unknown>;
    };
  };
  /** List runs, newest first */
  "GET /api/v1/runs": {
    params: Record<string, never>;
    query: {
      status?: string;
      agent_id?: string;
      test_suite_id?: string;
      /** Page size; values above the maximum are clamped */
      limit?: number;
      /** Items to skip */
      offset?: number;
    };
    body: never;
    /** HTTP 200 */
    response: {
      runs: Run[];
      total: number;
      limit: number;
      offset: number;
    };
  };
  /** Start a test run of a suite against an agent */
  "POST /api/v1/runs": {
    params: Record<string, never>;
    query: {
      /** Answer the plan instead of starting the run */
      dry_run?: boolean;
    };
    body: {
      /** UUID of the agent */
      agent_id: string;
      /** UUID; the Default suite when absent */
      test_suite_id?: string;
      name?: string;
      /** demo = first 20 scenarios (default), full = all */
      test_mode?: "demo" | "full";
      max_scenarios?: number;
      /** Default 4 (shorter than most built-in scripts: the run's warnings say which scenarios it cuts off) */
      max_turns?: number;
      /** Run each selected scenario this many times as independent scenario runs (default 1) */
      repeats?: number;
      /** "previous" (the newest completed run of the same agent and suite) or a run id (UUID or TR-<digits>) to compare with */
      baseline?: string;
    };
    /** HTTP 201 */
    response: {
      id: string;
      test_run_id: string;
      status: string;
      total_scenarios: number;
      poll_url: string;
      /** What could make this run's verdicts mean less than they seem (no judge model, scripts cut off by max_turns, tool names the agent does not resolve, the demo judge: computed when the run was created; reply latencies whose timing uncertainty exceeded 50 ms: added as conversations finish), [] when none */
      warnings: string[];
    };
  };
  /** Get a run (poll every 5 s until completed, failed or canceled) */
  "GET /api/v1/runs/{id}": {
    params: {
      /** Run UUID or human id TR-<digits> */
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 200 */
    response: Run;
  };
  /** A run with its scenario results, in suite order */
  "GET /api/v1/runs/{id}/results": {
    params: {
      /** Run UUID or human id TR-<digits> */
      id: string;
    };
    query: {
      /** passed, failed, error, or pending (= not finished) */
      status?: string;
      /** agent, tester, judge, provider, internal or canceled */
      fault?: string;
      /** Page size; values above the maximum are clamped */
      limit?: number;
      /** Items to skip */
      offset?: number;
    };
    body: never;
    /** HTTP 200 */
    response: {
      id: string;
      test_run_id: string;
      name: string;
      status: "pending" | "running" | "grading" | "completed" | "failed" | "canceled";
      agent_id: string;
      agent_name: string;
      /** 100 × passed / (passed + failed), 2 decimals; 0 when nothing was graded */
      pass_rate: number;
      passed_count: number;
      failed_count: number;
      error_count: number;
      /** Scenario runs with at least one criterion a person reviewed (not reviews, not criteria) */
      reviewed_count: number;
      total_scenarios: number;
      started_at: string;
      completed_at: string | null;
      duration_seconds: number | null;
      test_suite_id: string | null;
      test_mode: "demo" | "full";
      max_turns: number;
      created_at: string;
      error_message: string | null;
      metrics: {
        time_to_first_response_ms: number | null;
        average_turn_duration_ms: number | null;
        total_duration_ms: number | null;
        cost_usd: number | null;
        turn_count: number | null;
        p50_turn_duration_ms: number | null;
        p95_turn_duration_ms: number | null;
        total_cost_usd: number | null;
      } | null;
      /** Final scenario runs by fault */
      faults: {
        agent: number;
        tester: number;
        judge: number;
        provider: number;
        internal: number;
        canceled: number;
      };
      /** Scenario runs with at least one attempt that did not count */
      retried_count: number;
      /** Final scenario runs in error with fault agent (timeouts, hang-ups, no reply, unusable answers) */
      agent_error_count: number;
      strict_pass_rate: number | null;
      /** 100 × (passed + failed + agent_error_count) / total_scenarios, 2 decimals */
      coverage: number;
      /** What could make this run's verdicts mean less than they seem (no judge model, scripts cut off by max_turns, tool names the agent does not resolve, the demo judge: computed when the run was created; reply latencies whose timing uncertainty exceeded 50 ms: added as conversations finish), [] when none */
      warnings: string[];
      /** The largest amount (ms) by which Rehearsal's own load could have inflated a reply latency of this run: the worst event-loop lag of the thread that timed its replies while its conversations were in flight; null until a conversation has finished */
      timing_uncertainty_ms: number | null;
      /** How many times each selected scenario runs; total_scenarios = scenario_count × repeats */
      repeats: number;
      /** Distinct scenarios in the run */
      scenario_count: number;
      /** The run this one is compared with by default (GET /runs/{id}/comparison) */
      baseline_run_id: string | null;
      stats: {
        /** Scenarios whose graded repetitions both passed and failed */
        flaky_count: number;
        /** Scenarios that passed every repetition (pass^k) */
        pass_all_count: number;
        /** 95 % interval of pass_rate that treats a scenario's repetitions as correlated: the Wilson interval on the effective sample size n / (1 + (m − 1)·ICC), m the mean repetitions per scenario and ICC their intra-cluster correlation (one-way ANOVA estimate); null when nothing was graded */
        pass_rate_ci: {
          low: number;
          high: number;
        } | null;
      };
      results: Array<{
        id: string;
        scenario_id: string;
        scenario_name: string;
        repetition: number;
        status: "passed" | "failed" | "error" | "pending" | "running" | "grading";
        /** false for scenario runs that errored or have not finished */
        passed: boolean;
        grade_summary: string | null;
        error_message: string | null;
        duration_ms: number | null;
        metrics: {
          time_to_first_response_ms: number | null;
          average_turn_duration_ms: number | null;
          total_duration_ms: number | null;
          cost_usd: number | null;
          turn_count: number;
        } | null;
        fault: "agent" | "tester" | "judge" | "provider" | "internal" | "canceled" | null;
        end_reason: "tester_ended" | "max_turns" | "agent_ended" | "timeout" | "canceled" | "error" | null;
        agent_turns: number | null;
        decided_share: number | null;
      }>;
      results_total: number;
      results_limit: number;
      results_offset: number;
    };
  };
  /** Cancel a pending, running or grading run (idempotent on a canceled run) */
  "POST /api/v1/runs/{id}/cancel": {
    params: {
      /** Run UUID or human id TR-<digits> */
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 200 */
    response: Run;
  };
  /** Per-scenario aggregates over the run's repetitions, suite order */
  "GET /api/v1/runs/{id}/scenarios": {
    params: {
      /** Run UUID or human id TR-<digits> */
      id: string;
    };
    query: {
      /** Page size; values above the maximum are clamped */
      limit?: number;
      /** Items to skip */
      offset?: number;
    };
    body: never;
    /** HTTP 200 */
    response: {
      scenarios: ScenarioAggregate[];
      total: number;
      limit: number;
      offset: number;
    };
  };
  /** Compare a run with its baseline (or ?against=): per-scenario changes, significance, warnings */
  "GET /api/v1/runs/{id}/comparison": {
    params: {
      /** Run UUID or human id TR-<digits> */
      id: string;
    };
    query: {
      /** Run UUID or TR-<digits>; default the run's baseline */
      against?: string;
    };
    body: never;
    /** HTTP 200 */
    response: {
      run_id: string;
      baseline_run_id: string;
      verdict: "pending" | "regressed" | "improved" | "inconclusive" | "unchanged";
      pass_rate: {
        baseline: number | null;
        current: number | null;
        delta: number | null;
      };
      counts: {
        regressed: number;
        improved: number;
        unchanged: number;
        flaky: number;
        changed_template: number;
        incomparable: number;
        added: number;
        removed: number;
      };
      scenarios: Array<{
        scenario_id: string;
        scenario_name: string;
        change: "regressed" | "improved" | "unchanged" | "flaky" | "changed_template" | "incomparable" | "added" | "removed";
        /** p below 0.05 after Holm correction across the scenarios that have a p_value */
        significant: boolean;
        /** One-sided Fisher exact test in the direction of the change; null unless regressed or improved */
        p_value: number | null;
        baseline: {
          attempts: number;
          passed: number;
          failed: number;
          error: number;
        };
        current: {
          attempts: number;
          passed: number;
          failed: number;
          error: number;
        };
        criteria: Array<{
          criterion_index: number;
          criterion: string;
          baseline: "MET" | "PARTIAL" | "NOT_MET" | "UNSURE" | null;
          current: "MET" | "PARTIAL" | "NOT_MET" | "UNSURE" | null;
          change: "same" | "changed";
        }>;
      }>;
      comparability: {
        comparable: boolean;
        warnings: string[];
      };
    };
  };
  /** List the scenario runs of a run (graded ones show status "completed") */
  "GET /api/v1/scenario-runs": {
    params: Record<string, never>;
    query: {
      /** Required: parent run UUID (or TR-<digits>) */
      test_run_id?: string;
      /** pending, running, completed, failed, error */
      status?: string;
      passed?: boolean;
      /** agent, tester, judge, provider, internal or canceled */
      fault?: string;
      /** Page size; values above the maximum are clamped */
      limit?: number;
      /** Items to skip */
      offset?: number;
    };
    body: never;
    /** HTTP 200 */
    response: {
      scenario_runs: Array<{
        id: string;
        test_run_id: string;
        scenario_id: string;
        scenario_name: string;
        /** Which of the run's repeats of this scenario (1-based) */
        repetition: number;
        passed: boolean | null;
        grade_summary: string | null;
        duration_ms: number | null;
        error_message: string | null;
        created_at: string;
        completed_at: string | null;
        fault: "agent" | "tester" | "judge" | "provider" | "internal" | "canceled" | null;
        end_reason: "tester_ended" | "max_turns" | "agent_ended" | "timeout" | "canceled" | "error" | null;
        agent_turns: number | null;
        decided_share: number | null;
        status: "pending" | "running" | "completed" | "error";
      }>;
      total: number;
      limit: number;
      offset: number;
    };
  };
  /** A scenario run with transcript and graded criteria */
  "GET /api/v1/scenario-runs/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 200 */
    response: {
      id: string;
      test_run_id: string;
      scenario_id: string;
      scenario_name: string;
      /** Which of the run's repeats of this scenario (1-based) */
      repetition: number;
      passed: boolean | null;
      grade_summary: string | null;
      duration_ms: number | null;
      error_message: string | null;
      created_at: string;
      completed_at: string | null;
      fault: "agent" | "tester" | "judge" | "provider" | "internal" | "canceled" | null;
      end_reason: "tester_ended" | "max_turns" | "agent_ended" | "timeout" | "canceled" | "error" | null;
      agent_turns: number | null;
      decided_share: number | null;
      status: "pending" | "running" | "grading" | "passed" | "failed" | "error";
      criteria_results: Array<{
        criterion: string;
        decision: "MET" | "NOT_MET" | "PARTIAL" | "UNSURE";
        points_awarded: number;
        max_points: number;
        rationale: string;
        evidence_quotes?: Array<{
          /** Index of the cited transcript entry (0-based) */
          turn: number;
          role: string;
          text: string;
        }>;
        required?: boolean;
        graded_by?: "check" | "judge";
        /** The decisions behind this one, in the order they were made: one for a deterministic check or an unconfirmed judge decision, more when a NOT_MET or PARTIAL was confirmed or fabricated evidence re-asked; empty when no judge answered */
        votes?: Array<"MET" | "NOT_MET" | "PARTIAL" | "UNSURE">;
        /** Quotes the judge cited that are not in the transcript (they decide nothing) */
        rejected_quotes?: Array<{
          /** The transcript entry the judge cited (0-based) */
          turn: number;
          role: string;
          /** The quote as the judge wrote it */
          text: string;
          /** Why it did not verify, e.g. "not found in turn 3" */
          reason: string;
        }>;
        judge_decision: "MET" | "NOT_MET" | "PARTIAL" | "UNSURE";
        review: Review | null;
      }>;
      transcript: Array<{
        role: "user" | "assistant";
        content: string;
        timestamp: string;
        tool_calls?: Array<{
          id: string;
          name: string;
          arguments: unknown;
          result: unknown;
        }>;
        latency_ms?: number | null;
      }>;
      started_at: string | null;
      metrics: {
        time_to_first_response_ms: number | null;
        average_turn_duration_ms: number | null;
        total_duration_ms: number | null;
        cost_usd: number | null;
        turn_count: number;
      } | null;
      tester_model: string | null;
      judge_model: string | null;
      judge_prompt_version: string | null;
      scenario_version: string | null;
      /** Conversations started for it; 1 + attempt_history length once final */
      attempts: number;
      /** The attempts that did not count, oldest first */
      attempt_history: Array<{
        attempt: number;
        fault: "agent" | "tester" | "judge" | "provider" | "internal" | "canceled";
        error_message: string | null;
        started_at: string | null;
        ended_at: string;
      }>;
    };
  };
  /** Two scenario runs side by side: transcripts aligned by position, first divergence, criteria */
  "GET /api/v1/scenario-runs/{id}/diff": {
    params: {
      id: string;
    };
    query: {
      /** Required: the other scenario run's UUID */
      against?: string;
    };
    body: never;
    /** HTTP 200 */
    response: {
      /** Index of the first entry that differs; null when identical */
      first_divergence: number | null;
      entries: Array<{
        index: number;
        role: "user" | "assistant";
        current: string | null;
        against: string | null;
        /** Role, content and tool calls equal */
        same: boolean;
      }>;
      criteria: Array<{
        criterion_index: number;
        criterion: string;
        current: string | null;
        against: string | null;
        same: boolean;
      }>;
    };
  };
  /** Every review of a scenario run, oldest first (the latest per criterion is the effective one) */
  "GET /api/v1/scenario-runs/{id}/reviews": {
    params: {
      id: string;
    };
    query: {
      criterion_index?: number;
      /** Page size; values above the maximum are clamped */
      limit?: number;
      /** Items to skip */
      offset?: number;
    };
    body: never;
    /** HTTP 200 */
    response: {
      reviews: Review[];
      total: number;
      limit: number;
      offset: number;
    };
  };
  /** Review one criterion of a finished scenario run: the decision becomes the effective one and the scenario run and its run are re-scored */
  "POST /api/v1/scenario-runs/{id}/reviews": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      /** The criterion, 0-based, in the order of criteria_results */
      criterion_index: number;
      decision: "MET" | "PARTIAL" | "NOT_MET";
      note?: string;
    };
    /** HTTP 201 */
    response: Review;
  };
  /** How often the judge matched human reviews: agreement and Cohen's kappa, overall and per judge model */
  "GET /api/v1/judge/agreement": {
    params: Record<string, never>;
    query: {
      /** Only scenario runs graded by this judge model (exact match) */
      judge_model?: string;
      /** ISO 8601 time: only criteria whose effective review was written at or after it */
      since?: string;
    };
    body: never;
    /** HTTP 200 */
    response: {
      /** Reviewed judge-graded criteria (the latest review of each counts) */
      reviewed: number;
      agreement: number | null;
      cohen_kappa: number | null;
      /** {<judge decision>: {<review decision>: count}}, every key present */
      confusion: {
        MET: {
          MET: number;
          PARTIAL: number;
          NOT_MET: number;
        };
        PARTIAL: {
          MET: number;
          PARTIAL: number;
          NOT_MET: number;
        };
        NOT_MET: {
          MET: number;
          PARTIAL: number;
          NOT_MET: number;
        };
        UNSURE: {
          MET: number;
          PARTIAL: number;
          NOT_MET: number;
        };
      };
      by_judge_model: Array<{
        judge_model: string;
        /** Reviewed judge-graded criteria (the latest review of each counts) */
        reviewed: number;
        agreement: number | null;
        cohen_kappa: number | null;
      }>;
    };
  };
  /** List scenario templates: the organization's own templates newest first, then the built-in library in library order */
  "GET /api/v1/scenarios": {
    params: Record<string, never>;
    query: {
      /** Exact slug */
      slug?: string;
      /** Exact category, case-insensitive */
      category?: string;
      /** Templates carrying this tag, case-insensitive */
      tag?: string;
      /** Case-insensitive substring of the name or the description */
      q?: string;
      /** Page size; values above the maximum are clamped */
      limit?: number;
      /** Items to skip */
      offset?: number;
    };
    body: never;
    /** HTTP 200 */
    response: {
      scenarios: Scenario[];
      total: number;
      limit: number;
      offset: number;
    };
  };
  /** Create a scenario template */
  "POST /api/v1/scenarios": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
      description?: string | null;
      category?: string | null;
      tags?: string[];
      persona?: string | null;
      goal?: string | null;
      instructions?: string | null;
      opening_message?: string | null;
      script?: string[];
      criteria: Array<{
        criterion: string;
        max_points?: number;
        required?: boolean;
        check?: {
          type: "contains" | "not_contains" | "regex" | "not_regex";
          value: string;
          role?: "assistant" | "user";
        } | {
          type: "tool_called" | "tool_not_called";
          name: string;
          arguments?: Record<string, unknown>;
        } | {
          type: "max_turns" | "max_response_ms";
          value: number;
        } | {
          type: "responded_every_turn";
        } | null;
      }>;
      pass_threshold?: number;
      max_turns?: number | null;
      slug?: string | null;
      /** Default "api"; `rehearsal sync` sends "files" */
      source?: "api" | "files";
    };
    /** HTTP 201 */
    response: Scenario;
  };
  /** Draft scenario templates from a description or system prompt (not saved) */
  "POST /api/v1/scenarios/generate": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** What the agent does, or its system prompt */
      description: string;
      /** Default 10 */
      count?: number;
      /** Default: the library's categories */
      categories?: string[];
      /** Its name and description are added to the brief */
      agent_id?: string;
    };
    /** HTTP 200 */
    response: {
      scenarios: Array<{
        slug: string;
        category: string;
      }>;
      dropped: number;
      model: string;
    };
  };
  /** Get a scenario template (built-in or your own) */
  "GET /api/v1/scenarios/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 200 */
    response: Scenario;
  };
  /** Update a scenario template (only the fields given change; built-ins are read-only: 403) */
  "PUT /api/v1/scenarios/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      name?: string;
      description?: string | null;
      category?: string | null;
      tags?: string[];
      persona?: string | null;
      goal?: string | null;
      instructions?: string | null;
      opening_message?: string | null;
      script?: string[];
      criteria?: Array<{
        criterion: string;
        max_points?: number;
        required?: boolean;
        check?: {
          type: "contains" | "not_contains" | "regex" | "not_regex";
          value: string;
          role?: "assistant" | "user";
        } | {
          type: "tool_called" | "tool_not_called";
          name: string;
          arguments?: Record<string, unknown>;
        } | {
          type: "max_turns" | "max_response_ms";
          value: number;
        } | {
          type: "responded_every_turn";
        } | null;
      }>;
      pass_threshold?: number;
      max_turns?: number | null;
      slug?: string | null;
      /** Default "api"; `rehearsal sync` sends "files" */
      source?: "api" | "files";
    };
    /** HTTP 200 */
    response: Scenario;
  };
  /** Delete a scenario template (built-ins: 403; used by a test suite: 409 INVALID_STATE listing the suites) */
  "DELETE /api/v1/scenarios/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 204 */
    response: void;
  };
  /** Make an editable copy in your organization, named "<name> (copy)", "<name> (copy 2)", … */
  "POST /api/v1/scenarios/{id}/duplicate": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 201 */
    response: Scenario;
  };
  /** List test suites, newest first */
  "GET /api/v1/test-suites": {
    params: Record<string, never>;
    query: {
      /** Page size; values above the maximum are clamped */
      limit?: number;
      /** Items to skip */
      offset?: number;
    };
    body: never;
    /** HTTP 200 */
    response: {
      test_suites: TestSuite[];
      total: number;
      limit: number;
      offset: number;
    };
  };
  /** Create a test suite */
  "POST /api/v1/test-suites": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
      description?: string | null;
      /** Scenario template UUIDs, in run order, no repeats */
      scenario_ids: string[];
      /** Default "api"; `rehearsal sync` sends "files" */
      source?: "api" | "files";
    };
    /** HTTP 201 */
    response: TestSuite;
  };
  /** Get a test suite */
  "GET /api/v1/test-suites/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 200 */
    response: TestSuite;
  };
  /** Update a test suite (only the fields given change; scenario_ids replaces the list, order kept). The default suite may be renamed and edited and stays the default */
  "PUT /api/v1/test-suites/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      name?: string;
      description?: string | null;
      /** Scenario template UUIDs, in run order, no repeats */
      scenario_ids?: string[];
      /** Default "api"; `rehearsal sync` sends "files" */
      source?: "api" | "files";
    };
    /** HTTP 200 */
    response: TestSuite;
  };
  /** Delete a test suite. The default suite (is_default: true) cannot be deleted: 409 INVALID_STATE, since POST /runs without test_suite_id uses it; past runs keep their test_suite_id */
  "DELETE /api/v1/test-suites/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 204 */
    response: void;
  };
  /** List webhooks, newest first (never their secrets) */
  "GET /api/v1/webhooks": {
    params: Record<string, never>;
    query: {
      /** Only the webhooks of this agent */
      agent_id?: string;
      /** Page size; values above the maximum are clamped */
      limit?: number;
      /** Items to skip */
      offset?: number;
    };
    body: never;
    /** HTTP 200 */
    response: {
      webhooks: Webhook[];
      total: number;
      limit: number;
      offset: number;
    };
  };
  /** Register a webhook (the secret is shown only in this response) */
  "POST /api/v1/webhooks": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** Absolute http(s) URL */
      url: string;
      /** Signing secret (Standard Webhooks); write-only */
      secret?: string;
      description?: string | null;
      agent_id?: string | null;
      events?: Array<"test_run_completed" | "test_run_failed" | "test_run_canceled" | "test_run_regressed">;
    };
    /** HTTP 201 */
    response: {
      id: string;
      url: string;
      description: string | null;
      agent_id: string | null;
      events: Array<"test_run_completed" | "test_run_failed" | "test_run_canceled" | "test_run_regressed">;
      is_active: boolean;
      disabled_reason: string | null;
      created_at: string;
      updated_at: string;
      secret: string;
    };
  };
  /** Get a webhook */
  "GET /api/v1/webhooks/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 200 */
    response: Webhook;
  };
  /** Update a webhook (only the fields given change; is_active: true also resets its failure count and disabled_reason) */
  "PATCH /api/v1/webhooks/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      /** Absolute http(s) URL */
      url?: string;
      /** Signing secret (Standard Webhooks); write-only */
      secret?: string;
      description?: string | null;
      events?: Array<"test_run_completed" | "test_run_failed" | "test_run_canceled" | "test_run_regressed">;
      is_active?: boolean;
    };
    /** HTTP 200 */
    response: Webhook;
  };
  /** Delete a webhook and its delivery history (its pending retries stop) */
  "DELETE /api/v1/webhooks/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 204 */
    response: void;
  };
  /** List a webhook's deliveries, newest first (one per event sent to it; attempts are in the detail) */
  "GET /api/v1/webhooks/{id}/deliveries": {
    params: {
      id: string;
    };
    query: {
      status?: "pending" | "succeeded" | "failed";
      event?: "test_run_completed" | "test_run_failed" | "test_run_canceled" | "test_run_regressed" | "ping";
      /** Page size; values above the maximum are clamped */
      limit?: number;
      /** Items to skip */
      offset?: number;
    };
    body: never;
    /** HTTP 200 */
    response: {
      deliveries: WebhookDelivery[];
      total: number;
      limit: number;
      offset: number;
    };
  };
  /** Get a delivery with the payload sent and every attempt (status, first KiB of the response, duration, error) */
  "GET /api/v1/webhooks/{id}/deliveries/{delivery_id}": {
    params: {
      id: string;
      delivery_id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 200 */
    response: {
      id: string;
      webhook_id: string;
      event_id: string;
      event: "test_run_completed" | "test_run_failed" | "test_run_canceled" | "test_run_regressed" | "ping";
      /** pending while automatic attempts remain; succeeded after a 2xx; failed when attempts ran out */
      status: "pending" | "succeeded" | "failed";
      /** Attempts made so far, automatic and manual */
      attempt_count: number;
      next_attempt_at: string | null;
      created_at: string;
      updated_at: string;
      /** The JSON body sent: {event, test_run, id, created_at} (a ping: {event, id, created_at, webhook_id}) */
      payload: Record<string, unknown>;
      attempts: WebhookDeliveryAttempt[];
    };
  };
  /** Send a delivery again now (same event id and payload, fresh timestamp and signature); answers the delivery with the new attempt */
  "POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver": {
    params: {
      id: string;
      delivery_id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 200 */
    response: {
      id: string;
      webhook_id: string;
      event_id: string;
      event: "test_run_completed" | "test_run_failed" | "test_run_canceled" | "test_run_regressed" | "ping";
      /** pending while automatic attempts remain; succeeded after a 2xx; failed when attempts ran out */
      status: "pending" | "succeeded" | "failed";
      /** Attempts made so far, automatic and manual */
      attempt_count: number;
      next_attempt_at: string | null;
      created_at: string;
      updated_at: string;
      /** The JSON body sent: {event, test_run, id, created_at} (a ping: {event, id, created_at, webhook_id}) */
      payload: Record<string, unknown>;
      attempts: WebhookDeliveryAttempt[];
    };
  };
  /** Send a ping event now and answer the delivery with its attempt */
  "POST /api/v1/webhooks/{id}/test": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 200 */
    response: {
      id: string;
      webhook_id: string;
      event_id: string;
      event: "test_run_completed" | "test_run_failed" | "test_run_canceled" | "test_run_regressed" | "ping";
      /** pending while automatic attempts remain; succeeded after a 2xx; failed when attempts ran out */
      status: "pending" | "succeeded" | "failed";
      /** Attempts made so far, automatic and manual */
      attempt_count: number;
      next_attempt_at: string | null;
      created_at: string;
      updated_at: string;
      /** The JSON body sent: {event, test_run, id, created_at} (a ping: {event, id, created_at, webhook_id}) */
      payload: Record<string, unknown>;
      attempts: WebhookDeliveryAttempt[];
    };
  };
  /** List schedules, newest first */
  "GET /api/v1/schedules": {
    params: Record<string, never>;
    query: {
      /** Page size; values above the maximum are clamped */
      limit?: number;
      /** Items to skip */
      offset?: number;
    };
    body: never;
    /** HTTP 200 */
    response: {
      schedules: Schedule[];
      total: number;
      limit: number;
      offset: number;
    };
  };
  /** Create a schedule: a run started by cron, as POST /runs would start it */
  "POST /api/v1/schedules": {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** UUID of the agent */
      agent_id: string;
      test_suite_id?: string | null;
      /** 5-field cron: minute hour day-of-month month day-of-week */
      cron: string;
      /** IANA time zone the cron is read in (default UTC) */
      timezone?: string;
      /** Default demo */
      test_mode?: "demo" | "full";
      max_scenarios?: number | null;
      max_turns?: number | null;
      repeats?: number | null;
      /** "previous" (default): the run is compared with the schedule's previous run */
      baseline?: string;
      /** Default true; an inactive schedule never fires */
      is_active?: boolean;
    };
    /** HTTP 201 */
    response: Schedule;
  };
  /** Get a schedule with next_run_at and last_run_id */
  "GET /api/v1/schedules/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 200 */
    response: Schedule;
  };
  /** Change any subset of a schedule's fields (it fires for no minute before the change) */
  "PATCH /api/v1/schedules/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      /** UUID of the agent */
      agent_id?: string;
      test_suite_id?: string | null;
      /** 5-field cron: minute hour day-of-month month day-of-week */
      cron?: string;
      /** IANA time zone the cron is read in (default UTC) */
      timezone?: string;
      /** Default demo */
      test_mode?: "demo" | "full";
      max_scenarios?: number | null;
      max_turns?: number | null;
      repeats?: number | null;
      /** "previous" (default): the run is compared with the schedule's previous run */
      baseline?: string;
      /** Default true; an inactive schedule never fires */
      is_active?: boolean;
    };
    /** HTTP 200 */
    response: Schedule;
  };
  /** Delete a schedule (its runs stay) */
  "DELETE /api/v1/schedules/{id}": {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    /** HTTP 204 */
    response: void;
  };
  /** Each firing of a schedule, newest first: the run it created, or why it was skipped */
  "GET /api/v1/schedules/{id}/firings": {
    params: {
      id: string;
    };
    query: {
      /** Page size; values above the maximum are clamped */
      limit?: number;
      /** Items to skip */
      offset?: number;
    };
    body: never;
    /** HTTP 200 */
    response: {
      firings: Array<{
        id: string;
        scheduled_for: string;
        fired_at: string;
        status: "created" | "skipped";
        run_id: string | null;
        reason: string | null;
      }>;
      total: number;
      limit: number;
      offset: number;
    };
  };
}
