// `rehearsal/client`: a typed client for the Rehearsal API. Its types are generated from the service's
// OpenAPI document (openapi-types.ts), so they match what the routes validate and answer.
import type { Operations } from './openapi-types.js';

export { RehearsalClient, BROWSER_ONLY_TAGS, FINAL_RUN_STATUSES, OPERATION_METHODS, type ClientOptions, type WaitOptions } from './client.js';
export { RehearsalError, RehearsalTimeoutError, parseRetryAfter, type ErrorBody } from './errors.js';
export { paginate, type Page } from './paginate.js';
export type { FetchLike, RequestOptions, RetryOptions, OperationKey } from './transport.js';
export type { Agent, ApiKey, Operations, Run, Scenario, TestSuite, Webhook, WebhookDelivery, WebhookDeliveryAttempt } from './openapi-types.js';

export type RunResults = Operations['GET /api/v1/runs/{id}/results']['response'];
/** One element of a run's results (GET /runs/{id}/results). */
export type ScenarioResult = RunResults['results'][number];
/** A scenario run with transcript and graded criteria (GET /scenario-runs/{id}). */
export type ScenarioRun = Operations['GET /api/v1/scenario-runs/{id}']['response'];
export type CriterionResult = ScenarioRun['criteria_results'][number];
export type ScenarioAggregate = Operations['GET /api/v1/runs/{id}/scenarios']['response']['scenarios'][number];
export type Comparison = Operations['GET /api/v1/runs/{id}/comparison']['response'];
export type ScenarioRunDiff = Operations['GET /api/v1/scenario-runs/{id}/diff']['response'];
export type CreateRunBody = Operations['POST /api/v1/runs']['body'];
export type CreateAgentBody = Operations['POST /api/v1/agents']['body'];
export type CreatedApiKey = Operations['POST /api/v1/api-keys']['response'];
export type CreatedWebhook = Operations['POST /api/v1/webhooks']['response'];
