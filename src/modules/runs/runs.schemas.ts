import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/common.js';

// Request schemas of the run routes; the service takes their Static types as its inputs. The ids are plain
// strings on purpose: the service answers a malformed one with INVALID_FIELD_VALUE naming the field.

export const CreateRunQuery = Type.Object({ dry_run: Type.Optional(Type.Boolean({ description: 'Answer the plan instead of starting the run' })) }, { additionalProperties: false });

export const CreateRunBody = Type.Object({
  agent_id: Type.String({ maxLength: 64, description: 'UUID of the agent' }),
  test_suite_id: Type.Optional(Type.String({ maxLength: 64, description: 'UUID; the Default suite when absent' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  test_mode: Type.Optional(Type.String({ enum: ['demo', 'full'], description: 'demo = first 20 scenarios (default), full = all' })),
  max_scenarios: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  max_turns: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'Default 4 (shorter than most built-in scripts: the run\'s warnings say which scenarios it cuts off)' })),
  repeats: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, description: 'Run each selected scenario this many times as independent scenario runs (default 1)' })),
  baseline: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: '"previous" (the newest completed run of the same agent and suite) or a run id (UUID or TR-<digits>) to compare with' })),
}, { additionalProperties: false, required: ['agent_id'] });
export type CreateRunInput = Static<typeof CreateRunBody>;

// status is a plain string: the service answers an unknown one with the list of valid ones
export const RunListQuery = Type.Object({ status: Type.Optional(Type.String({ maxLength: 20 })), agent_id: Type.Optional(Type.String({ maxLength: 64 })), test_suite_id: Type.Optional(Type.String({ maxLength: 64 })), ...PageQuery });
export type RunListQuery = Static<typeof RunListQuery>;

export const RunResultsQuery = Type.Object({
  status: Type.Optional(Type.String({ maxLength: 20, description: 'passed, failed, error, or pending (= not finished)' })),
  fault: Type.Optional(Type.String({ maxLength: 20, description: 'agent, tester, judge, provider, internal or canceled' })),
  ...PageQuery,
});
export type RunResultsQuery = Static<typeof RunResultsQuery>;
