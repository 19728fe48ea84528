import { createHash } from 'node:crypto';
import type { scenarios } from '../../db/schema.js';
import { normalizeCriterion, type CriterionInput, type ScenarioSpec } from '../../engine/types.js';

type ScenarioRow = typeof scenarios.$inferSelect;

/** What the engine needs of a stored scenario template. */
export function toScenarioSpec(s: ScenarioRow): ScenarioSpec {
  return {
    id: s.id, name: s.name, persona: s.persona, goal: s.goal, instructions: s.instructions, opening_message: s.openingMessage,
    script: s.script, criteria: (s.criteria as CriterionInput[]).map(normalizeCriterion), pass_threshold: s.passThreshold, max_turns: s.maxTurns,
  };
}

type VersionedFields = Pick<ScenarioRow, 'persona' | 'goal' | 'instructions' | 'openingMessage' | 'script' | 'criteria' | 'passThreshold' | 'maxTurns'>;

/**
 * Digest of the template content that the tester and grading depend on. Name, tags and description are left
 * out: renaming a template does not change what its results mean. Criteria are normalized first, so spelling
 * out a default (max_points 1) is not an edit.
 */
export function scenarioVersion(s: VersionedFields): string {
  const content = [
    s.persona ?? null, s.goal ?? null, s.instructions ?? null, s.openingMessage ?? null, s.script,
    (s.criteria as CriterionInput[]).map(normalizeCriterion).map((c) => [c.criterion, c.max_points, c.required, c.check]),
    s.passThreshold, s.maxTurns ?? null,
  ];
  return `sha256:${createHash('sha256').update(canonical(content)).digest('hex').slice(0, 16)}`;
}

/** JSON with object keys sorted, so the digest does not depend on how a driver orders jsonb keys. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}
