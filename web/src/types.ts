// The shapes of the public API (/api/v1) the dashboard reads, named for the pages: thin aliases of the types
// generated from the OpenAPI document (src/client/openapi-types.ts), so a route change shows up here as a
// type error instead of drifting from a hand-kept copy.
import type {
  Agent as ApiAgent,
  ApiKey as ApiApiKey,
  Operations,
  Run as ApiRun,
  Scenario as ApiScenario,
  TestSuite as ApiTestSuite,
  Webhook as ApiWebhook,
  WebhookDelivery,
  WebhookDeliveryAttempt,
} from '../../src/client/openapi-types.js';

type Response<K extends keyof Operations> = Operations[K]['response'];

/** The dashboard treats provider values as opaque strings (their labels come from providerFields.ts). */
export type Agent = Omit<ApiAgent, 'provider'> & { provider: string };
export type ApiKey = ApiApiKey;
export type Run = ApiRun;
export type Scenario = ApiScenario;
export type TestSuite = ApiTestSuite;
export type Webhook = ApiWebhook;

export type RunStatus = Run['status'];
export type RunMetrics = NonNullable<Run['metrics']>;
export const FINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'canceled'];
export const isFinal = (s: string) => (FINAL_RUN_STATUSES as readonly string[]).includes(s);

export type RunResults = Response<'GET /api/v1/runs/{id}/results'>;
export type ScenarioResult = RunResults['results'][number];
export type ScenarioMetrics = NonNullable<ScenarioResult['metrics']>;

export type ScenarioRun = Response<'GET /api/v1/scenario-runs/{id}'>;
export type ScenarioAggregate = Response<'GET /api/v1/runs/{id}/scenarios'>['scenarios'][number];
export type RunScenarios = Response<'GET /api/v1/runs/{id}/scenarios'>;
export type Comparison = Response<'GET /api/v1/runs/{id}/comparison'>;
export type ScenarioRunDiff = Response<'GET /api/v1/scenario-runs/{id}/diff'>;
export type CriterionResult = ScenarioRun['criteria_results'][number];
export type AgreementReport = Response<'GET /api/v1/judge/agreement'>;
export type EvidenceQuote = NonNullable<CriterionResult['evidence_quotes']>[number];
export type TranscriptEntry = ScenarioRun['transcript'][number];
export type ToolCall = NonNullable<TranscriptEntry['tool_calls']>[number];

export type Criterion = Scenario['criteria'][number];
export type Check = NonNullable<Criterion['check']>;

// as the service's WEBHOOK_EVENTS: a new webhook gets all four unless some are unticked
export const WEBHOOK_EVENTS = ['test_run_completed', 'test_run_failed', 'test_run_canceled', 'test_run_regressed'] as const;
export type Delivery = WebhookDelivery;
export type DeliveryAttempt = WebhookDeliveryAttempt;
export type DeliveryDetail = Response<'GET /api/v1/webhooks/{id}/deliveries/{delivery_id}'>;

/** The dashboard's own sign-in route is not part of the public API document, so its shape is kept here. */
export interface Session {
  organization: { id: string; name: string };
  api_key: { id: string; name: string; prefix: string; last_four: string; expires_at: string | null };
  created_at: string;
  expires_at: string;
}
export type ValidationResult = Response<'POST /api/v1/agents/{id}/validate'>;
