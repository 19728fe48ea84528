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
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('scenarios_org_name_key').on(t.orgId, t.nameKey),
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
  errorMessage: text('error_message'),
  metrics: jsonb('metrics'),
  createdAt: createdAt(),
  startedAt: ts('started_at').notNull(),
  completedAt: ts('completed_at'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('runs_seq_key').on(t.seq),
  index('runs_org_created_idx').on(t.orgId, t.createdAt),
  index('runs_org_status_idx').on(t.orgId, t.status),
  index('runs_agent_idx').on(t.agentId),
]);

export const scenarioRuns = pgTable('scenario_runs', {
  id: uuid('id').primaryKey(),
  runId: uuid('run_id').notNull().references(() => runs.id, { onDelete: 'cascade' }),
  orgId: uuid('org_id').notNull(),
  scenarioId: uuid('scenario_id').notNull(),
  scenarioName: text('scenario_name').notNull(),
  position: integer('position').notNull(),
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
  attempts: integer('attempts').notNull().default(0),
  // set once a job exists for this scenario run (runs enqueue a sliding window of them)
  enqueued: boolean('enqueued').notNull().default(false),
  // the worker holding the conversation and until when; an expired lease is taken over
  leaseOwner: text('lease_owner'),
  leaseExpiresAt: ts('lease_expires_at'),
  createdAt: createdAt(),
  startedAt: ts('started_at'),
  completedAt: ts('completed_at'),
}, (t) => [
  index('scenario_runs_run_idx').on(t.runId, t.position),
  index('scenario_runs_run_status_idx').on(t.runId, t.status),
  index('scenario_runs_lease_idx').on(t.leaseExpiresAt).where(sql`${t.leaseOwner} is not null`),
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
}, (t) => [uniqueIndex('webhook_events_run_key').on(t.runId)]);

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
  // an attempt in flight; a worker killed mid-attempt leaves it to expire
  lockedUntil: ts('locked_until'),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('webhook_deliveries_webhook_event_key').on(t.webhookId, t.eventId),
  index('webhook_deliveries_webhook_idx').on(t.webhookId, t.createdAt),
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
}, (t) => [uniqueIndex('webhook_attempts_delivery_attempt_key').on(t.deliveryId, t.attempt)]);

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
