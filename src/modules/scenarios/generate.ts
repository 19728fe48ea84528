import { Type, type Static } from '@sinclair/typebox';
import { and, eq, isNull } from 'drizzle-orm';
import { agents } from '../../db/schema.js';
import type { Ctx, Deps } from '../../deps.js';
import { AppError, referencedNotFound, invalidField } from '../../http/errors.js';
import { isUuid } from '../../http/common.js';
import { validateWith } from '../../http/validation.js';
import { createLlmClient, type ChatMessage, type LlmClient } from '../../lib/llm-client.js';
import { ScenarioFileSchema } from './scenarios.schemas.js';
import { MIN_DETERMINISTIC_CHECKS, MIN_JUDGE_CRITERIA, MIN_SCRIPT_LINES, SCENARIO_CATEGORIES } from './library.js';
import { SLUG_PATTERN } from './scenarios.schemas.js';

// POST /scenarios/generate: drafts of scenario files from a description or system prompt, by the generator
// model at the configured endpoint. Each draft is checked against the template schema and the library's shape
// (category asked, a script of 6+ lines, judge criteria and a deterministic check); the missing or invalid ones
// are asked for once more, then dropped.

export const GenerateBody = Type.Object({
  description: Type.String({ minLength: 1, maxLength: 20_000, description: 'What the agent does, or its system prompt' }),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'Default 10' })),
  categories: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 20, uniqueItems: true, description: "Default: the library's categories" })),
  agent_id: Type.Optional(Type.String({ maxLength: 64, description: 'Its name and description are added to the brief' })),
}, { additionalProperties: false });
export type GenerateInput = Static<typeof GenerateBody>;

const checkDraft = validateWith(ScenarioFileSchema);
const slugRe = new RegExp(SLUG_PATTERN);
export type Draft = Record<string, unknown> & { slug: string; category: string };

const SYSTEM = `You write test scenarios for a conversational AI agent. A simulated caller (persona, goal, instructions,
opening_message, and a script of caller lines for offline use) talks to the agent; a judge grades the transcript
against criteria. Answer with JSON only: {"scenarios": [ ... ]}, each scenario an object with exactly these keys:
slug (lower-case words joined by "-"), name, description, category, tags (array of strings), persona, goal,
instructions, opening_message, script (at least ${MIN_SCRIPT_LINES} caller lines), criteria, pass_threshold (0-1), max_turns (1-50).
criteria: array of {criterion, max_points (number), required (boolean), check}; check is null for a criterion the
judge grades, or a deterministic check: {"type":"contains"|"not_contains","value":"text"} or {"type":"regex"|"not_regex","value":"pattern"}.
Every scenario has at least two judge criteria (check null) and at least one deterministic check.`;

function brief(input: GenerateInput, agent: { name: string; description: string | null } | null, cats: string[]): string {
  const lines = [`The agent: ${input.description}`];
  if (agent) lines.push(`Its name: ${agent.name}.${agent.description ? ` Its description: ${agent.description}` : ''}`);
  lines.push('', `Write ${cats.length} scenarios, in this order, with these categories:`, ...cats.map((c, i) => `${i + 1}. category "${c}"`));
  return lines.join('\n');
}

/** Why a draft is not usable, or null. */
function problem(d: unknown, category: string): string | null {
  if (!d || typeof d !== 'object' || Array.isArray(d)) return 'not an object';
  const { slug, ...body } = d as Record<string, unknown>;
  if (typeof slug !== 'string' || !slugRe.test(slug)) return 'slug missing or invalid';
  if (!checkDraft(body)) return `invalid: ${checkDraft.errors?.[0]?.instancePath} ${checkDraft.errors?.[0]?.message}`;
  if (body.category !== category) return `category must be ${category}`;
  // like the built-ins: a caller to play, a script for offline use, judge criteria and a deterministic check
  for (const k of ['persona', 'goal', 'instructions'] as const) if (typeof body[k] !== 'string' || !body[k].trim()) return `${k} missing`;
  if (!Array.isArray(body.script) || body.script.length < MIN_SCRIPT_LINES) return `script needs ${MIN_SCRIPT_LINES} lines`;
  const criteria = body.criteria as Array<{ check?: unknown }>;
  if (criteria.filter((c) => !c.check).length < MIN_JUDGE_CRITERIA) return `needs ${MIN_JUDGE_CRITERIA} judge criteria`;
  if (criteria.filter((c) => c.check).length < MIN_DETERMINISTIC_CHECKS) return `needs ${MIN_DETERMINISTIC_CHECKS} deterministic check`;
  for (const c of criteria as Array<{ check?: { type?: string; value?: string } | null }>) {
    if (c.check && (c.check.type === 'regex' || c.check.type === 'not_regex')) {
      try { new RegExp(String(c.check.value), 'i'); } catch { return 'a regex check does not compile'; }
    }
  }
  return null;
}

async function ask(client: LlmClient, model: string, messages: ChatMessage[]): Promise<unknown[]> {
  const res = await client.chat({ model, messages, response_format: { type: 'json_object' }, temperature: 0.7, signal: AbortSignal.timeout(120_000) });
  try {
    const parsed = JSON.parse(res.content ?? '');
    return Array.isArray(parsed?.scenarios) ? parsed.scenarios : [];
  } catch {
    return [];
  }
}

export async function generateScenarios(deps: Deps, ctx: Ctx, input: GenerateInput, client?: LlmClient) {
  const { baseUrl, apiKey, judgeModel, generatorModel } = deps.config.llm;
  const model = generatorModel ?? judgeModel;
  let agent: { name: string; description: string | null } | null = null;
  if (input.agent_id !== undefined) {
    if (!isUuid(input.agent_id)) throw referencedNotFound('AGENT_NOT_FOUND', 'Agent not found', 'agent_id');
    [agent] = await deps.db.orm.select({ name: agents.name, description: agents.description }).from(agents)
      .where(and(eq(agents.orgId, ctx.orgId), eq(agents.id, input.agent_id.toLowerCase()), isNull(agents.deletedAt)));
    if (!agent) throw referencedNotFound('AGENT_NOT_FOUND', 'Agent not found', 'agent_id');
  }
  if (!baseUrl) throw new AppError('INVALID_STATE', 'No LLM endpoint is configured: set REHEARSAL_LLM_BASE_URL (and REHEARSAL_GENERATOR_MODEL or REHEARSAL_JUDGE_MODEL)');
  if (!model) throw new AppError('INVALID_STATE', 'No generator model is configured: set REHEARSAL_GENERATOR_MODEL (or REHEARSAL_JUDGE_MODEL)');
  if (!input.description.trim()) throw invalidField('description', 'description must not be blank');
  const count = input.count ?? 10;
  const categories = input.categories ?? [...SCENARIO_CATEGORIES];
  // round-robin: every category gets a draft when count allows
  const wanted = Array.from({ length: count }, (_, i) => categories[i % categories.length]);
  const llm = client ?? createLlmClient({ baseUrl, apiKey, clock: deps.clock });

  const slots: (Draft | null)[] = wanted.map(() => null);
  for (let round = 0; round < 2; round++) {
    const open = slots.flatMap((d, i) => (d ? [] : [i]));
    if (open.length === 0) break;
    const cats = open.map((i) => wanted[i]);
    const got = await ask(llm, model, [{ role: 'system', content: SYSTEM }, { role: 'user', content: brief(input, agent, cats) }]);
    // a valid draft fills the first open slot of its category, wherever the model put it; extra ones are discarded
    const taken = new Set<number>();
    open.forEach((slot, k) => {
      const j = got.findIndex((d, i) => !taken.has(i) && problem(d, cats[k]) === null);
      if (j < 0) return;
      taken.add(j);
      slots[slot] = got[j] as Draft;
    });
  }
  const used = new Set<string>();
  const drafts = slots.filter((d): d is Draft => d !== null).map((d) => {
    let slug = d.slug;
    for (let n = 2; used.has(slug); n++) slug = `${d.slug.slice(0, 60)}-${n}`;
    used.add(slug);
    return { ...d, slug };
  });
  return { scenarios: drafts, dropped: count - drafts.length, model };
}
