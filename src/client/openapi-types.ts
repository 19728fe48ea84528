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
}

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
  created_at: string;
  updated_at: string;
}

export interface Webhook {
  id: string;
  url: string;
  description: string | null;
  agent_id: string | null;
  events: Array<"test_run_completed" | "test_run_failed" | "test_run_canceled">;
  is_active: boolean;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event: "test_run_completed" | "test_run_failed" | "test_run_canceled" | "ping";
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
    query: Record<string, never>;
    body: {
      /** UUID of the agent */
      agent_id: string;
      /** UUID; the Default suite when absent */
      test_suite_id?: string;
      name?: string;
      /** demo = first 20 scenarios (default), full = all */
      test_mode?: "demo" | "full";
      max_scenarios?: number;
      /** Default 4 */
      max_turns?: number;
    };
    /** HTTP 201 */
    response: {
      id: string;
      test_run_id: string;
      status: string;
      total_scenarios: number;
      poll_url: string;
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
      results: Array<{
        id: string;
        scenario_id: string;
        scenario_name: string;
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
  /** List the scenario runs of a run (graded ones show status "completed") */
  "GET /api/v1/scenario-runs": {
    params: Record<string, never>;
    query: {
      /** Required: parent run UUID (or TR-<digits>) */
      test_run_id?: string;
      /** pending, running, completed, failed, error */
      status?: string;
      passed?: boolean;
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
        passed: boolean | null;
        grade_summary: string | null;
        duration_ms: number | null;
        error_message: string | null;
        created_at: string;
        completed_at: string | null;
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
      passed: boolean | null;
      grade_summary: string | null;
      duration_ms: number | null;
      error_message: string | null;
      created_at: string;
      completed_at: string | null;
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
      /** Conversation attempts (more than 1 after a worker crash) */
      attempts: number;
    };
  };
  /** List scenario templates: the organization's own templates newest first, then the built-in library in library order */
  "GET /api/v1/scenarios": {
    params: Record<string, never>;
    query: {
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
    };
    /** HTTP 201 */
    response: Scenario;
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
      events?: Array<"test_run_completed" | "test_run_failed" | "test_run_canceled">;
    };
    /** HTTP 201 */
    response: {
      id: string;
      url: string;
      description: string | null;
      agent_id: string | null;
      events: Array<"test_run_completed" | "test_run_failed" | "test_run_canceled">;
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
      events?: Array<"test_run_completed" | "test_run_failed" | "test_run_canceled">;
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
      event?: "test_run_completed" | "test_run_failed" | "test_run_canceled" | "ping";
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
      event: "test_run_completed" | "test_run_failed" | "test_run_canceled" | "ping";
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
      event: "test_run_completed" | "test_run_failed" | "test_run_canceled" | "ping";
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
      event: "test_run_completed" | "test_run_failed" | "test_run_canceled" | "ping";
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
}
