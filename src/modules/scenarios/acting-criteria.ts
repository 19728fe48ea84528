import type { Criterion } from '../../engine/types.js';

// Silence and "OK." satisfy every "never does X" criterion. A built-in template must therefore hold the agent
// to at least one thing it has to do: a required criterion that only an agent that acts can meet.

/** Phrasings that a do-nothing agent meets vacuously ("Does not…", "Never…", "Stays…" and their kin). */
const ABSENCE = /^(does not|doesn['’]t|do not|don['’]t|never|stays|remains|keeps|avoids|refrains|respects|without|makes no|shows no|states no|uses no|gives no|says nothing)\b/i;

export const phrasedAsAbsence = (text: string) => ABSENCE.test(text.trim());

/**
 * A criterion only an acting agent can meet: a contains, regex or tool_called check, or a judge criterion
 * that asks for something to be done rather than left undone.
 */
export function requiresAction(c: Pick<Criterion, 'criterion' | 'check'>): boolean {
  if (c.check) return c.check.type === 'contains' || c.check.type === 'regex' || c.check.type === 'tool_called';
  return !phrasedAsAbsence(c.criterion);
}

export const hasRequiredAction = (criteria: readonly Criterion[]) => criteria.some((c) => c.required && requiresAction(c));
