import { sql } from 'drizzle-orm';
import {
  bigserial, boolean, doublePrecision, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid,
} from 'drizzle-orm/pg-core';

// One schema for both drivers (PGlite and PostgreSQL 15+). Ids are UUIDv7 generated in code.
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date', precision: 3 });
const createdAt = () => ts('created_at').notNull().defaultNow();

export const organizations = pgTable('organizations', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: createdAt(),
}, (t) => [uniqueIndex('organizations_name_key').on(sql`lower(${t.name})`)]);

export const apiKeys = pgTable('api_keys', {
  id: uuid('id').primaryKey(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  keyHash: text('key_hash').notNull(),
  prefix: text('prefix').notNull(),
  lastFour: text('last_four').notNull(),
  createdAt: createdAt(),
  expiresAt: ts('expires_at'),
  lastUsedAt: ts('last_used_at'),
  revokedAt: ts('revoked_at'),
}, (t) => [uniqueIndex('api_keys_hash_key').on(t.keyHash), index('api_keys_org_idx').on(t.orgId, t.createdAt)]);

export const agents = pgTable('agents', {
  id: uuid('id').primaryKey(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  provider: text('provider').notNull(),
  name: text('name').notNull(),
  nameKey: text('name_key').notNull(),
  description: text('description'),
  isActive: boolean('is_active').notNull().default(true),
  configSealed: text('config_sealed').notNull(),
  configFields: jsonb('config_fields').$type<string[]>().notNull(),
  // null: the agent's tools are unknown, so tool checks on names it never called stay undecided
  toolNames: jsonb('tool_names').$type<string[] | null>(),
  // true once tool_names was given explicitly; otherwise it follows provider_4's config.tools
  toolNamesSet: boolean('tool_names_set').notNull().default(false),
  toolAliases: jsonb('tool_aliases').$type<Record<string, string | null>>().notNull().default(sql`'{}'::jsonb`),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
  deletedAt: ts('deleted_at'),
}, (t) => [
  uniqueIndex('agents_org_name_key').on(t.orgId, t.nameKey).where(sql`${t.deletedAt} is null`),
  index('agents_org_idx').on(t.orgId, t.createdAt),
]);

export const scenarios = pgTable('scenarios', {
  id: uuid('id').primaryKey(),
  // null for the built-in library, shared by every organization
  orgId: uuid('org_id').references(() => organizations.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  nameKey: text('name_key').notNull(),
  description: text('description'),
  category: text('category'),
  tags: jsonb('tags').$type<string[]>().notNull(),
  persona: text('persona'),
  goal: text('goal'),
  instructions: text('instructions'),
  openingMessage: text('opening_message'),
  script: jsonb('script').$type<string[]>().notNull(),
  criteria: jsonb('criteria').$type<unknown[]>().notNull(),
  passThreshold: doublePrecision('pass_threshold').notNull(),
  maxTurns: integer('max_turns'),
  isBuiltin: boolean('is_builtin').notNull(),
  position: integer('position'),
  // the file name in a user's repository (or the library's); unique per organization, built-ins checked in code
  slug: text('slug'),
  // builtin | api | files: `rehearsal sync --prune` only deletes what files made
  source: text('source').notNull().default('api'),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('scenarios_org_name_key').on(t.orgId, t.nameKey),
  uniqueIndex('scenarios_org_slug_key').on(t.orgId, t.slug).where(sql`${t.slug} is not null`),
  index('scenarios_org_idx').on(t.orgId, t.createdAt),
]);

export const testSuites = pgTable('test_suites', {
  id: uuid('id').primaryKey(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  nameKey: text('name_key').notNull(),
  description: text('description'),
  isDefault: boolean('is_default').notNull().default(false),
  scenarioIds: jsonb('scenario_ids').$type<string[]>().notNull(),
  source: text('source').notNull().default('api'),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('test_suites_org_name_key').on(t.orgId, t.nameKey),
  index('test_suites_org_idx').on(t.orgId, t.createdAt),
]);

export const runs = pgTable('runs', {
  id: uuid('id').primaryKey(),
  seq: bigserial('seq', { mode: 'number' }).notNull(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  status: text('status').notNull(),
  agentId: uuid('agent_id').notNull(),
  agentName: text('agent_name').notNull(),
  testSuiteId: uuid('test_suite_id'),
  testMode: text('test_mode').notNull(),
  maxTurns: integer('max_turns').notNull(),
  totalScenarios: integer('total_scenarios').notNull(),
  passedCount: integer('passed_count').notNull().default(0),
  failedCount: integer('failed_count').notNull().default(0),
  errorCount: integer('error_count').notNull().default(0),
  // scenario runs with at least one criterion a person reviewed
  reviewedCount: integer('reviewed_count').notNull().default(0),
  // final scenario runs by fault (failed ones are fault agent, so agent errors = fault_agent − failed_count)
  faultAgent: integer('fault_agent').notNull().default(0),
  faultTester: integer('fault_tester').notNull().default(0),
  faultJudge: integer('fault_judge').notNull().default(0),
  faultProvider: integer('fault_provider').notNull().default(0),
  faultInternal: integer('fault_internal').notNull().default(0),
  faultCanceled: integer('fault_canceled').notNull().default(0),
  // final scenario runs with at least one attempt that did not count
  retriedCount: integer('retried_count').notNull().default(0),
  errorMessage: text('error_message'),
  metrics: jsonb('metrics'),
  // what could make this run's verdicts mean less than they seem, said when it was created
  warnings: jsonb('warnings').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
  // each selected scenario runs this many times; total_scenarios counts scenario runs, scenario_count scenarios
  repeats: integer('repeats').notNull().default(1),
  // null on runs created before repeats existed, where it equals total_scenarios
  scenarioCount: integer('scenario_count'),
  // the run this one is compared with by default; not a foreign key, so deleting a baseline leaves its id
  baselineRunId: uuid('baseline_run_id'),
  // the largest event-loop lag seen while this run's conversations were in flight; null before it was measured
  timingUncertaintyMs: integer('timing_uncertainty_ms'),
  createdAt: createdAt(),
  startedAt: ts('started_at').notNull(),
  completedAt: ts('completed_at'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('runs_seq_key').on(t.seq),
  index('runs_org_created_idx').on(t.orgId, t.createdAt),
  index('runs_org_status_idx').on(t.orgId, t.status),
  index('runs_agent_idx').on(t.agentId),
  index('runs_org_agent_suite_idx').on(t.orgId, t.agentId, t.testSuiteId, t.createdAt),
]);

export const scenarioRuns = pgTable('scenario_runs', {
  id: uuid('id').primaryKey(),
  runId: uuid('run_id').notNull().references(() => runs.id, { onDelete: 'cascade' }),
  orgId: uuid('org_id').notNull(),
  scenarioId: uuid('scenario_id').notNull(),
  scenarioName: text('scenario_name').notNull(),
  position: integer('position').notNull(),
  // the template's threshold when the run was created: a review re-scores against it, not an edited template
  passThreshold: doublePrecision('pass_threshold'),
  // 1-based: the scenario's independent repetitions in this run share its position
  repetition: integer('repetition').notNull().default(1),
  // digest of the template content grading and the tester depend on, so an edited template is never compared silently
  scenarioVersion: text('scenario_version'),
  status: text('status').notNull(),
  passed: boolean('passed'),
  gradeSummary: text('grade_summary'),
  criteriaResults: jsonb('criteria_results').$type<unknown[]>().notNull().default(sql`'[]'::jsonb`),
  transcript: jsonb('transcript').$type<unknown[]>().notNull().default(sql`'[]'::jsonb`),
  errorMessage: text('error_message'),
  durationMs: integer('duration_ms'),
  metrics: jsonb('metrics'),
  turnDurations: jsonb('turn_durations').$type<number[]>(),
  testerModel: text('tester_model'),
  judgeModel: text('judge_model'),
  // digest of the judge prompt template: grades from different prompts are not silently compared
  judgePromptVersion: text('judge_prompt_version'),
  attempts: integer('attempts').notNull().default(0),
  fault: text('fault'),
  endReason: text('end_reason'),
  agentTurns: integer('agent_turns'),
  decidedShare: doublePrecision('decided_share'),
  // the attempts that did not count, oldest first: [{attempt, fault, error_message, started_at, ended_at}]
  attemptHistory: jsonb('attempt_history').$type<unknown[]>().notNull().default(sql`'[]'::jsonb`),
  attemptStartedAt: ts('attempt_started_at'),
  // set once a job exists for this scenario run (runs enqueue a sliding window of them)
  enqueued: boolean('enqueued').notNull().default(false),
  // when its latest job was enqueued: a row waiting unclaimed long after that has lost its job (the sweeper re-enqueues)
  enqueuedAt: ts('enqueued_at'),
  // the worker holding the conversation and until when; an expired lease is taken over
  leaseOwner: text('lease_owner'),
  leaseExpiresAt: ts('lease_expires_at'),
  createdAt: createdAt(),
  startedAt: ts('started_at'),
  completedAt: ts('completed_at'),
}, (t) => [
  index('scenario_runs_run_idx').on(t.runId, t.position, t.repetition),
  index('scenario_runs_run_status_idx').on(t.runId, t.status),
  index('scenario_runs_lease_idx').on(t.leaseExpiresAt).where(sql`${t.leaseOwner} is not null`),
  index('scenario_runs_unclaimed_idx').on(t.enqueuedAt).where(sql`${t.leaseOwner} is null and ${t.status} in ('pending', 'running', 'grading')`),
]);

export const webhooks = pgTable('webhooks', {
  id: uuid('id').primaryKey(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  url: text('url').notNull(),
  description: text('description'),
  agentId: uuid('agent_id'),
  events: jsonb('events').$type<string[]>().notNull(),
  isActive: boolean('is_active').notNull().default(true),
  secretSealed: text('secret_sealed').notNull(),
  consecutiveFailures: integer('consecutive_failures').notNull().default(0),
  disabledReason: text('disabled_reason'),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [index('webhooks_org_idx').on(t.orgId, t.createdAt)]);

export const idempotencyKeys = pgTable('idempotency_keys', {
  orgId: uuid('org_id').notNull(),
  key: text('key').notNull(),
  requestHash: text('request_hash').notNull(),
  state: text('state').notNull(),
  responseStatus: integer('response_status'),
  responseBody: text('response_body'),
  createdAt: createdAt(),
}, (t) => [uniqueIndex('idempotency_keys_pk').on(t.orgId, t.key)]);

/**
 * One row per event: a run's final state (unique per run, so it is emitted once whatever retries the
 * finalizing transaction) or a manual ping. `body` is the exact JSON sent, so every attempt sends the same bytes.
 */
export const webhookEvents = pgTable('webhook_events', {
  id: uuid('id').primaryKey(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  runId: uuid('run_id').references(() => runs.id, { onDelete: 'cascade' }),
  event: text('event').notNull(),
  body: text('body').notNull(),
  createdAt: createdAt(),
  // one event of each kind per run: a regressed run sends test_run_regressed beside its test_run_completed
}, (t) => [uniqueIndex('webhook_events_run_event_key').on(t.runId, t.event)]);

export const webhookDeliveries = pgTable('webhook_deliveries', {
  id: uuid('id').primaryKey(),
  webhookId: uuid('webhook_id').notNull().references(() => webhooks.id, { onDelete: 'cascade' }),
  eventId: uuid('event_id').notNull().references(() => webhookEvents.id, { onDelete: 'cascade' }),
  event: text('event').notNull(),
  status: text('status').notNull(),
  // every attempt, automatic or manual; numbers the attempts
  attemptCount: integer('attempt_count').notNull().default(0),
  // automatic attempts only: the position in the retry schedule, and the guard against duplicate jobs
  autoAttempts: integer('auto_attempts').notNull().default(0),
  nextAttemptAt: ts('next_attempt_at'),
  // an automatic attempt in flight: until when, and the claiming worker's token (only its holder moves the schedule)
  lockedUntil: ts('locked_until'),
  lockToken: text('lock_token'),
  // when its latest job becomes due: one due long ago and still unclaimed has lost its job (the sweeper re-enqueues)
  enqueuedAt: ts('enqueued_at'),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('webhook_deliveries_webhook_event_key').on(t.webhookId, t.eventId),
  index('webhook_deliveries_webhook_idx').on(t.webhookId, t.createdAt),
  index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
]);

export const webhookAttempts = pgTable('webhook_attempts', {
  id: uuid('id').primaryKey(),
  deliveryId: uuid('delivery_id').notNull().references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
  attempt: integer('attempt').notNull(),
  trigger: text('trigger').notNull(),
  attemptedAt: ts('attempted_at').notNull(),
  responseStatus: integer('response_status'),
  responseBody: text('response_body'),
  durationMs: integer('duration_ms').notNull(),
  error: text('error'),
  // written before the request goes out: non-null while in flight (the token of the process making it)
  claimToken: text('claim_token'),
}, (t) => [
  uniqueIndex('webhook_attempts_delivery_attempt_key').on(t.deliveryId, t.attempt),
  index('webhook_attempts_in_flight_idx').on(t.attemptedAt).where(sql`${t.claimToken} is not null`),
]);

/**
 * Dashboard sign-in sessions. The cookie holds a random token; only its SHA-256 digest is stored. A session
 * belongs to the API key it was opened with and is checked together with that key on every request, so
 * revoking or expiring the key ends its sessions at once; signing out deletes the row.
 */
export const sessions = pgTable('sessions', {
  id: uuid('id').primaryKey(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  apiKeyId: uuid('api_key_id').notNull().references(() => apiKeys.id, { onDelete: 'cascade' }),
  tokenHash: text('token_hash').notNull(),
  createdAt: createdAt(),
  expiresAt: ts('expires_at').notNull(),
}, (t) => [uniqueIndex('sessions_token_hash_key').on(t.tokenHash), index('sessions_api_key_idx').on(t.apiKeyId)]);

/** A cron schedule that starts runs; pg-boss's scheduler fires it (one job per minute per schedule). */
export const schedules = pgTable('schedules', {
  id: uuid('id').primaryKey(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  agentId: uuid('agent_id').notNull(),
  testSuiteId: uuid('test_suite_id'),
  cron: text('cron').notNull(),
  timezone: text('timezone').notNull(),
  testMode: text('test_mode').notNull(),
  maxScenarios: integer('max_scenarios'),
  maxTurns: integer('max_turns'),
  repeats: integer('repeats'),
  baseline: text('baseline').notNull(),
  isActive: boolean('is_active').notNull(),
  lastRunId: uuid('last_run_id'),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [index('schedules_org_idx').on(t.orgId, t.createdAt)]);

/** One row per fired minute: the unique key makes a firing count once however many workers see it. */
export const scheduleFirings = pgTable('schedule_firings', {
  id: uuid('id').primaryKey(),
  scheduleId: uuid('schedule_id').notNull().references(() => schedules.id, { onDelete: 'cascade' }),
  orgId: uuid('org_id').notNull(),
  scheduledFor: ts('scheduled_for').notNull(),
  firedAt: ts('fired_at').notNull(),
  status: text('status').notNull(),
  runId: uuid('run_id'),
  reason: text('reason'),
}, (t) => [
  uniqueIndex('schedule_firings_minute_key').on(t.scheduleId, t.scheduledFor),
  index('schedule_firings_schedule_idx').on(t.scheduleId, t.scheduledFor),
]);

/**
 * Every human review of a criterion, kept as history: the latest one per (scenario run, criterion) is the
 * effective decision. The judge's decision, its model and the reviewer's key name are copied in, so the
 * agreement report reads this table alone and a renamed or revoked key still names who reviewed.
 */
export const reviews = pgTable('reviews', {
  id: uuid('id').primaryKey(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  scenarioRunId: uuid('scenario_run_id').notNull().references(() => scenarioRuns.id, { onDelete: 'cascade' }),
  criterionIndex: integer('criterion_index').notNull(),
  decision: text('decision').notNull(),
  note: text('note'),
  judgeDecision: text('judge_decision').notNull(),
  // false for deterministic checks: only judge-graded criteria count towards judge agreement
  judgeGraded: boolean('judge_graded').notNull(),
  judgeModel: text('judge_model'),
  apiKeyId: uuid('api_key_id').notNull(),
  reviewerName: text('reviewer_name').notNull(),
  createdAt: createdAt(),
}, (t) => [
  index('reviews_scenario_run_idx').on(t.scenarioRunId, t.criterionIndex, t.createdAt),
  index('reviews_org_created_idx').on(t.orgId, t.createdAt),
]);
