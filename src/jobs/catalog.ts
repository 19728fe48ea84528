import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * Every job the system runs, as data: name, payload schema (checked again at dequeue: a payload's
 * static type is never trusted), retry budget and expiry. Handlers live with their modules.
 */
export interface JobDef<S extends TSchema = TSchema> {
  name: string;
  payload: S;
  retryLimit: number;
  retryDelaySeconds: number;
  /** pg-boss expires (and retries) a job held longer than this: the backstop behind our own leases. */
  expireInSeconds: number;
}

const def = <S extends TSchema>(d: JobDef<S>) => d;

export const ScenarioJobPayload = Type.Object({
  scenario_run_id: Type.String({ format: 'uuid' }),
  run_id: Type.String({ format: 'uuid' }),
  org_id: Type.String({ format: 'uuid' }),
}, { additionalProperties: false });
export type ScenarioJobPayload = Static<typeof ScenarioJobPayload>;

export const WebhookDeliveryPayload = Type.Object({
  delivery_id: Type.String({ format: 'uuid' }),
  // which automatic attempt this job is for: a duplicate job for an attempt already made does nothing
  attempt: Type.Integer({ minimum: 1 }),
}, { additionalProperties: false });
export type WebhookDeliveryPayload = Static<typeof WebhookDeliveryPayload>;

/** pg-boss's scheduler sends it once a minute (across all processes); the handler fires the due schedules. */
export const ScheduleTickPayload = Type.Object({}, { additionalProperties: true });

export const JOBS = {
  /**
   * Holds one scenario's conversation with the agent and grades it. The rows are the truth: once the
   * scenario run is claimed, its lease and the reaper cover a dead worker; before that, the pending
   * sweeper re-enqueues a scenario run whose job was lost, expired or spent. Expiry is a second line
   * (a conversation outliving it gets a retry whose claim finds it held and does nothing), and the retry
   * budget is large so expiries cannot spend it.
   */
  scenarioRun: def({ name: 'scenario-run', payload: ScenarioJobPayload, retryLimit: 100, retryDelaySeconds: 2, expireInSeconds: 60 }),
  /**
   * One automatic attempt of a webhook delivery; the retry schedule is ours (each attempt enqueues the
   * next, delayed) and the delivery sweeper re-enqueues one whose job was lost. pg-boss's own retries
   * are a second line for a worker that died holding the job: expiry just outlasts an attempt (15 s
   * request, 20 s lock), and the budget is large so expiries cannot spend it (a duplicate is a no-op claim).
   */
  webhookDelivery: def({ name: 'webhook-delivery', payload: WebhookDeliveryPayload, retryLimit: 100, retryDelaySeconds: 3, expireInSeconds: 30 }),
  /** The minute tick of run schedules; a firing is recorded under a unique key, so a retried or duplicate tick fires nothing twice. */
  scheduleTick: def({ name: 'schedule-tick', payload: ScheduleTickPayload, retryLimit: 2, retryDelaySeconds: 5, expireInSeconds: 60 }),
} as const;

export type JobName = (typeof JOBS)[keyof typeof JOBS]['name'];
