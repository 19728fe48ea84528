import { Type, type TSchema } from '@sinclair/typebox';
import { Nullable } from '../http/common.js';
import { ScenarioFileSchema, Slug } from '../modules/scenarios/scenarios.schemas.js';
import { PROVIDERS } from '../providers/configs.js';

// The three file kinds of a project folder. The scenario file holds exactly what POST /scenarios accepts
// (less `slug`, which is the file name, and `source`), from the same TypeBox fields the API validates with.


export const SuiteFileSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  scenarios: Type.Array(Slug, { minItems: 1, maxItems: 1000, description: 'Slugs: scenario files of the folder or built-in templates, in run order' }),
}, { additionalProperties: false, title: 'Rehearsal test suite (suites/<name>.yaml)' });

export const InlineAgentSchema = Type.Object({
  provider: Type.String({ enum: [...PROVIDERS] }),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  config: Type.Record(Type.String(), Type.Unknown(), { description: 'The provider config; secrets only as ${ENV_VAR} references' }),
}, { additionalProperties: false });

export const RehearsalFileSchema = Type.Object({
  agent: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200, description: 'Name or id of a registered agent' }), InlineAgentSchema])),
  suite: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "A suite file's name, a suite on the service, or its id" })),
  test_mode: Type.Optional(Type.String({ enum: ['demo', 'full'] })),
  max_scenarios: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  max_turns: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
  repeats: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
  baseline: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  min_pass_rate: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  min_coverage: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  fail_on_regression: Type.Optional(Type.Boolean()),
}, { additionalProperties: false, title: 'Rehearsal project defaults (rehearsal.yaml)' });

export const FILE_KINDS = { rehearsal: RehearsalFileSchema, scenario: ScenarioFileSchema, suite: SuiteFileSchema } as const;
export type FileKind = keyof typeof FILE_KINDS;

/** The JSON Schema document of a file kind, as shipped in schemas/ and served at /api/v1/schemas/<kind>.json. */
export function fileJsonSchema(kind: FileKind): Record<string, unknown> {
  const strip = (s: unknown): unknown => JSON.parse(JSON.stringify(s)) as TSchema;
  return { $schema: 'http://json-schema.org/draft-07/schema#', ...(strip(FILE_KINDS[kind]) as object) };
}
