import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../../http/common.js';

const fields = {
  agent_id: Type.String({ maxLength: 64, description: 'UUID of the agent' }),
  test_suite_id: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'UUID; the Default suite when absent' }))),
  cron: Type.String({ minLength: 9, maxLength: 200, description: '5-field cron: minute hour day-of-month month day-of-week' }),
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone the cron is read in (default UTC)' })),
  test_mode: Type.Optional(Type.String({ enum: ['demo', 'full'], description: 'Default demo' })),
  max_scenarios: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100_000 }))),
  max_turns: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 50 }))),
  repeats: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 10, description: 'Repetitions per scenario, as POST /runs (default 1)' }))),
  baseline: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: '"previous" (default): the run is compared with the schedule\'s previous run' })),
  is_active: Type.Optional(Type.Boolean({ description: 'Default true; an inactive schedule never fires' })),
};

// Request bodies of the schedule routes; the service takes their Static types as its inputs. The ids are plain
// strings on purpose: the service answers a malformed one with INVALID_FIELD_VALUE naming the field.
export const CreateScheduleBody = Type.Object(fields, { additionalProperties: false });
export type CreateScheduleInput = Static<typeof CreateScheduleBody>;
export const UpdateScheduleBody = Type.Partial(Type.Object(fields), { additionalProperties: false });
export type UpdateScheduleInput = Static<typeof UpdateScheduleBody>;

export const ScheduleSchema = Type.Object({
  id: Uuid, agent_id: Uuid, test_suite_id: Nullable(Uuid), cron: Type.String(), timezone: Type.String(),
  test_mode: Type.String(), max_scenarios: Nullable(Type.Integer()), max_turns: Nullable(Type.Integer()), repeats: Nullable(Type.Integer()),
  baseline: Type.String(), is_active: Type.Boolean(),
  last_run_id: Nullable(Uuid), next_run_at: Nullable(Timestamp), created_at: Timestamp, updated_at: Timestamp,
}, { $id: 'Schedule' });

export const FiringSchema = Type.Object({
  id: Uuid, scheduled_for: Timestamp, fired_at: Timestamp, status: Type.String({ enum: ['created', 'skipped'] }),
  run_id: Nullable(Uuid), reason: Nullable(Type.String()),
});
