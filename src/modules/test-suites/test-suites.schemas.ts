import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../http/common.js';

// Request bodies of the test-suite routes; the service takes their Static types as its inputs.

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Description = Nullable(Type.String({ maxLength: 2000 }));
// Items are checked in the service: a bad UUID is named by index, unknown ids are listed together.
const Source = Type.String({ enum: ['api', 'files'], description: 'Default "api"; `rehearsal sync` sends "files"' });
const ScenarioIds = Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 1000, description: 'Scenario template UUIDs, in run order, no repeats' });

export const CreateTestSuiteBody = Type.Object({ name: Name, description: Type.Optional(Description), scenario_ids: ScenarioIds, source: Type.Optional(Source) }, { additionalProperties: false });
export type CreateTestSuiteInput = Static<typeof CreateTestSuiteBody>;

export const UpdateTestSuiteBody = Type.Object(
  { name: Type.Optional(Name), description: Type.Optional(Description), scenario_ids: Type.Optional(ScenarioIds), source: Type.Optional(Source) },
  { additionalProperties: false },
);
export type UpdateTestSuiteInput = Static<typeof UpdateTestSuiteBody>;
