import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../../http/common.js';
import { Check, CriterionInput } from '../../engine/types.js';

const Text = (maxLength: number) => Nullable(Type.String({ maxLength }));

/**
 * `Check` keyed on its `type`: as a plain anyOf, a check with a bad value reports every other branch's
 * failures too (e.g. "name is required" for a regex check); with if/then only the branch its `type` names
 * is checked, so the error names the real problem.
 */
function byType(union: typeof Check) {
  const literals = (s: TSchema): string[] => (s.const !== undefined ? [s.const] : (s.anyOf as TSchema[]).map((x) => x.const));
  const branches = union.anyOf.map((b) => ({ types: literals(b.properties.type), schema: b }));
  return Type.Unsafe<Static<typeof Check>>({
    type: 'object',
    required: ['type'],
    properties: { type: { type: 'string', enum: branches.flatMap((b) => b.types) } },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable
    allOf: branches.map((b) => ({ if: { properties: { type: { enum: b.types } } }, then: b.schema })),
  });
}

const CriterionBody = Type.Object({
  ...CriterionInput.properties,
  check: Type.Optional(Nullable(byType(Check))),
}, { additionalProperties: false });

/** A criterion as stored and shown: defaults applied, so `max_points`, `required` and `check` are always present. */
export const CriterionSchema = Type.Object({
  criterion: Type.String(),
  max_points: Type.Number(),
  required: Type.Boolean(),
  check: Nullable(Check),
});

/** A template's slug: its file name in a repository (`scenarios/<slug>.yaml`). */
export const SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{0,63}$';
export const Slug = Type.String({ pattern: SLUG_PATTERN, minLength: 1, maxLength: 64, description: 'Unique per organization; built-ins have theirs' });
export const Source = Type.String({ enum: ['builtin', 'api', 'files'], description: '"files" for what `rehearsal sync` made' });
/** Accepted on writes: `rehearsal sync` marks what it makes, so `--prune` never deletes what the API made. */
const WritableSource = Type.String({ enum: ['api', 'files'], description: 'Default "api"; `rehearsal sync` sends "files"' });

export const ScenarioSchema = Type.Object({
  id: Uuid,
  slug: Nullable(Type.String()),
  source: Source,
  name: Type.String(),
  description: Nullable(Type.String()),
  category: Nullable(Type.String()),
  tags: Type.Array(Type.String()),
  persona: Nullable(Type.String()),
  goal: Nullable(Type.String()),
  instructions: Nullable(Type.String()),
  opening_message: Nullable(Type.String()),
  script: Type.Array(Type.String(), { description: 'Tester lines used when no tester model is configured' }),
  criteria: Type.Array(CriterionSchema),
  pass_threshold: Type.Number({ minimum: 0, maximum: 1 }),
  max_turns: Nullable(Type.Integer({ description: "Caps the run's max_turns for this scenario" })),
  is_builtin: Type.Boolean({ description: 'Built-in templates are shared by every organization and read-only' }),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { $id: 'Scenario' });

export const ScenarioList = Type.Object({
  scenarios: Type.Array(ScenarioSchema), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer(),
});

// Every field a scenario file holds (the file name is its slug); POST requires name and criteria.
export const fileFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Text(2000)),
  category: Type.Optional(Text(100)),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50, uniqueItems: true })),
  persona: Type.Optional(Text(4000)),
  goal: Type.Optional(Text(4000)),
  instructions: Type.Optional(Text(8000)),
  opening_message: Type.Optional(Text(4000)),
  script: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 4000 }), { maxItems: 100 })),
  criteria: Type.Array(CriterionBody, { minItems: 1, maxItems: 50 }),
  pass_threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  max_turns: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 50 }))),
};
const fields = { ...fileFields, slug: Type.Optional(Nullable(Slug)), source: Type.Optional(WritableSource) };

export const CreateScenarioBody = Type.Object(fields, { additionalProperties: false });
export type CreateScenarioInput = Static<typeof CreateScenarioBody>;

export const UpdateScenarioBody = Type.Partial(Type.Object(fields), { additionalProperties: false });
export type UpdateScenarioInput = Static<typeof UpdateScenarioBody>;

export const ScenarioQuery = {
  slug: Type.Optional(Type.String({ maxLength: 64, description: 'Exact slug' })),
  category: Type.Optional(Type.String({ maxLength: 100, description: 'Exact category, case-insensitive' })),
  tag: Type.Optional(Type.String({ maxLength: 100, description: 'Templates carrying this tag, case-insensitive' })),
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring of the name or the description' })),
};

/** A scenario file (scenarios/<slug>.yaml): what POST /scenarios accepts, less `slug` (the file name) and `source`. */
export const ScenarioFileSchema = Type.Object(fileFields, {
  additionalProperties: false,
  title: 'Rehearsal scenario template (scenarios/<slug>.yaml)',
});
