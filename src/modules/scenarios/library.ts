import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { CriterionInput, normalizeCriterion, type Criterion } from '../../engine/types.js';

// The built-in scenario library: one JSON data file per template in `library/scenarios/NN-slug.json` at the
// repository root. The file-name order is the library's fixed order (the first 20 form the demo set).

export const SCENARIO_CATEGORIES = [
  'greeting-and-identification',
  'booking-and-changes',
  'billing-and-refunds',
  'complaints-and-escalation',
  'out-of-scope',
  'safety',
  'hard-callers',
] as const;
export type ScenarioCategory = (typeof SCENARIO_CATEGORIES)[number];

export const ScenarioCategorySchema = Type.Union(SCENARIO_CATEGORIES.map((c) => Type.Literal(c)));

const UUID_V7_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$';
const UUID_V7 = new RegExp(UUID_V7_PATTERN);
const SLUG_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';
const FILE_NAME = /^(\d{2,})-([a-z0-9]+(?:-[a-z0-9]+)*)\.json$/;

export const MIN_SCRIPT_LINES = 6;
export const MIN_JUDGE_CRITERIA = 2;
export const MIN_DETERMINISTIC_CHECKS = 1;

/** One data file of the built-in library, as written on disk. Unknown fields are rejected. */
export const BuiltinTemplateSchema = Type.Object({
  id: Type.String({ pattern: UUID_V7_PATTERN, description: 'UUID version 7, fixed forever' }),
  slug: Type.String({ pattern: SLUG_PATTERN, minLength: 1, maxLength: 80 }),
  name: Type.String({ minLength: 1, maxLength: 80 }),
  description: Type.String({ minLength: 1, maxLength: 1000 }),
  category: ScenarioCategorySchema,
  tags: Type.Array(Type.String({ pattern: SLUG_PATTERN, minLength: 1, maxLength: 40 }), { maxItems: 20, uniqueItems: true }),
  persona: Type.String({ minLength: 1, maxLength: 2000 }),
  goal: Type.String({ minLength: 1, maxLength: 2000 }),
  instructions: Type.String({ minLength: 1, maxLength: 4000 }),
  opening_message: Type.String({ minLength: 1, maxLength: 2000 }),
  script: Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { minItems: MIN_SCRIPT_LINES, maxItems: 50 }),
  criteria: Type.Array(CriterionInput, { minItems: MIN_JUDGE_CRITERIA + MIN_DETERMINISTIC_CHECKS, maxItems: 30 }),
  pass_threshold: Type.Number({ minimum: 0, maximum: 1 }),
  max_turns: Type.Union([Type.Integer({ minimum: 1, maximum: 50 }), Type.Null()]),
}, { additionalProperties: false });

/** A built-in template with its criteria normalized (max_points, required and check always present). */
export type BuiltinTemplate = Omit<Static<typeof BuiltinTemplateSchema>, 'criteria' | 'category'> & {
  category: ScenarioCategory;
  criteria: Criterion[];
};

export function defaultLibraryDir(): string {
  // Three directories up from src/modules/scenarios/ (or dist/modules/scenarios/) is the repository root.
  return fileURLToPath(new URL('../../../library/scenarios/', import.meta.url));
}

const cache = new Map<string, BuiltinTemplate[]>();

/**
 * Reads, validates and returns every `*.json` template in `dir` (default: the repository's library), sorted by
 * file name. Throws an Error naming the file and the problem on the first invalid file. Cached per directory;
 * the returned templates are frozen.
 */
export function loadBuiltinLibrary(dir?: string): BuiltinTemplate[] {
  const root = path.resolve(dir ?? defaultLibraryDir());
  let lib = cache.get(root);
  if (!lib) {
    lib = readLibrary(root);
    cache.set(root, lib);
  }
  return [...lib];
}

function readLibrary(root: string): BuiltinTemplate[] {
  let entries: string[];
  try {
    entries = fs.readdirSync(root);
  } catch (err) {
    throw new Error(`built-in scenario library: cannot read directory ${root}: ${(err as Error).message}`);
  }
  const files = entries.filter((f) => f.endsWith('.json')).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (files.length === 0) throw new Error(`built-in scenario library: no *.json templates in ${root}`);

  const ids = new Map<string, string>();
  const names = new Map<string, string>();
  const slugs = new Map<string, string>();
  const out: BuiltinTemplate[] = [];
  for (const file of files) {
    const t = readTemplate(root, file);
    const fail = (msg: string) => {
      throw new Error(`built-in scenario ${file}: ${msg}`);
    };
    const nameKey = t.name.trim().toLowerCase();
    if (ids.has(t.id)) fail(`id ${t.id} is already used by ${ids.get(t.id)}`);
    if (names.has(nameKey)) fail(`name "${t.name}" is already used by ${names.get(nameKey)}`);
    if (slugs.has(t.slug)) fail(`slug "${t.slug}" is already used by ${slugs.get(t.slug)}`);
    ids.set(t.id, file);
    names.set(nameKey, file);
    slugs.set(t.slug, file);
    out.push(deepFreeze(t));
  }
  return out;
}

function readTemplate(root: string, file: string): BuiltinTemplate {
  function fail(msg: string): never {
    throw new Error(`built-in scenario ${file}: ${msg}`);
  }
  const m = FILE_NAME.exec(file);
  if (!m) fail('file name must look like NN-slug.json (two or more digits, then a lowercase slug)');
  const fileSlug = m[2];

  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));
  } catch (err) {
    fail(`not valid JSON: ${(err as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('must contain one JSON object');
  const obj = raw as Record<string, unknown>;

  // Friendlier messages for the rules people trip over most, before the generic schema errors.
  if (typeof obj.id === 'string' && !UUID_V7.test(obj.id)) fail(`id "${obj.id}" is not a lowercase UUID version 7`);
  if (typeof obj.category === 'string' && !(SCENARIO_CATEGORIES as readonly string[]).includes(obj.category)) {
    fail(`category "${obj.category}" is not one of ${SCENARIO_CATEGORIES.join(', ')}`);
  }
  if (Array.isArray(obj.script) && obj.script.length < MIN_SCRIPT_LINES) {
    fail(`script has ${obj.script.length} lines; at least ${MIN_SCRIPT_LINES} are required`);
  }

  if (!Value.Check(BuiltinTemplateSchema, raw)) {
    const problems = [...Value.Errors(BuiltinTemplateSchema, raw)]
      .slice(0, 5)
      .map((e) => `${e.path || '/'}: ${e.message}`);
    fail(`does not match the template schema: ${problems.join('; ')}`);
  }
  const t = raw as Static<typeof BuiltinTemplateSchema>;

  if (t.slug !== fileSlug) fail(`slug "${t.slug}" does not match the file name's slug "${fileSlug}"`);
  if (t.name.trim() !== t.name) fail('name has leading or trailing spaces');
  if (t.script[0] !== t.opening_message) fail('opening_message must equal the first script line');

  const criteria = t.criteria.map(normalizeCriterion);
  const judge = criteria.filter((c) => c.check === null).length;
  const checks = criteria.length - judge;
  if (judge < MIN_JUDGE_CRITERIA) fail(`has ${judge} judge-graded criteria (check: null); at least ${MIN_JUDGE_CRITERIA} are required`);
  if (checks < MIN_DETERMINISTIC_CHECKS) fail(`has no deterministic check; at least ${MIN_DETERMINISTIC_CHECKS} is required`);

  const seen = new Set<string>();
  criteria.forEach((c, i) => {
    const key = c.criterion.trim().toLowerCase();
    if (seen.has(key)) fail(`criteria[${i}] repeats the criterion "${c.criterion}"`);
    seen.add(key);
    if (c.check && (c.check.type === 'regex' || c.check.type === 'not_regex')) {
      try {
        new RegExp(c.check.value, 'i');
      } catch (err) {
        fail(`criteria[${i}] ("${c.criterion}") has an invalid regex: ${(err as Error).message}`);
      }
    }
  });

  return { ...t, criteria };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}
