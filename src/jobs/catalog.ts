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

export const JOBS = {
  /**
   * Holds one scenario's conversation with the agent and grades it. Once the scenario run is claimed its
   * lease and the reaper cover a dead worker; expiry covers a worker killed between fetching the job and
   * claiming (found by the chaos suite: with an hour here, such a scenario run sat unclaimed for an hour).
   * A conversation outliving the expiry gets a retry whose claim finds it held and does nothing.
   */
  scenarioRun: def({ name: 'scenario-run', payload: ScenarioJobPayload, retryLimit: 5, retryDelaySeconds: 2, expireInSeconds: 60 }),
  /**
   * One automatic attempt of a webhook delivery; the retry schedule is ours (each attempt enqueues the
   * next, delayed). pg-boss retries only cover a worker that died mid-attempt: expiry outlasts the
   * 15 s request plus the attempt's lock.
   */
  webhookDelivery: def({ name: 'webhook-delivery', payload: WebhookDeliveryPayload, retryLimit: 10, retryDelaySeconds: 30, expireInSeconds: 120 }),
} as const;

export type JobName = (typeof JOBS)[keyof typeof JOBS]['name'];
