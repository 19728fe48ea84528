import type { Agent, RehearsalClient, Scenario, TestSuite } from '../client/index.js';
import { normalizeCriterion, type CriterionInput } from '../engine/types.js';
import type { Project, ScenarioFile } from '../files/project.js';
import { UsageError } from './io.js';

// `rehearsal sync`: upserts the folder's templates by slug and suites by name (and an inline agent by name),
// writing only what differs, so a second sync changes nothing — updated_at included.

export interface SyncCounts { created: number; updated: number; unchanged: number }
export interface SyncResult {
  templates: SyncCounts; suites: SyncCounts; agent: (SyncCounts & { id: string }) | null;
  /** slug → template id, the folder's and every built-in's. */
  slugs: Map<string, string>;
  /** suite name (lower-cased) → id, for the folder's suites. */
  suiteIds: Map<string, string>;
  pruned: string[];
}

const zero = (): SyncCounts => ({ created: 0, updated: 0, unchanged: 0 });

/** The template a file describes, as the API shows it (defaults applied), for comparison. */
function desired(f: ScenarioFile) {
  const b = f.body;
  const t = (v: string | null | undefined) => (v === undefined || v === null || v === '' ? null : v);
  return {
    name: b.name.trim(), description: t(b.description), category: t(b.category), tags: b.tags ?? [], persona: t(b.persona), goal: t(b.goal),
    instructions: t(b.instructions), opening_message: t(b.opening_message), script: b.script ?? [],
    criteria: (b.criteria as CriterionInput[]).map(normalizeCriterion), pass_threshold: b.pass_threshold ?? 0.75, max_turns: b.max_turns ?? null,
  };
}
type Desired = ReturnType<typeof desired>;

/** Keys sorted at every level: a file's `{value, type}` is the API's `{type, value}`. Arrays keep their order. */
const canonical = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  return v;
};
const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
function differs(want: Desired, have: Scenario): boolean {
  return (Object.keys(want) as (keyof Desired)[]).some((k) => !same(want[k], (have as unknown as Record<string, unknown>)[k]));
}

export async function syncProject(client: RehearsalClient, project: Project, opts: { prune: boolean; signal?: AbortSignal }): Promise<SyncResult> {
  const o = { signal: opts.signal };
  const result: SyncResult = { templates: zero(), suites: zero(), agent: null, slugs: new Map(), suiteIds: new Map(), pruned: [] };

  if (project.agent) {
    const a = project.agent;
    const counts = zero();
    let existing: Agent | undefined;
    for await (const x of client.agents.iterate({}, o)) if (x.name.trim().toLowerCase() === a.name.trim().toLowerCase()) existing = x;
    let id: string;
    if (!existing) {
      id = (await client.agents.create({ provider: a.provider as never, name: a.name, config: a.config as never }, o)).id;
      counts.created++;
    } else {
      // an agent's provider cannot change: said plainly rather than as the other provider's config errors
      if (existing.provider !== a.provider) {
        throw new UsageError(`the agent "${existing.name}" is registered for ${existing.provider}, and rehearsal.yaml defines it for ${a.provider}: ` +
          'give the inline agent another name, or delete the registered one');
      }
      const after = await client.agents.update(existing.id, { config: a.config as never, is_active: true }, o);
      id = after.id;
      if (after.updated_at === existing.updated_at) counts.unchanged++; else counts.updated++;
    }
    result.agent = { ...counts, id };
  }

  const all: Scenario[] = [];
  for await (const s of client.scenarios.iterate({}, o)) all.push(s);
  const bySlug = new Map(all.filter((s) => s.slug).map((s) => [s.slug!, s]));
  for (const s of all) if (s.slug) result.slugs.set(s.slug, s.id);
  for (const f of project.scenarios) {
    const want = desired(f);
    const have = bySlug.get(f.slug);
    if (!have) {
      const made = await client.scenarios.create({ ...f.body, slug: f.slug, source: 'files' } as never, o);
      result.slugs.set(f.slug, made.id);
      result.templates.created++;
    } else if (differs(want, have) || have.source !== 'files') {
      await client.scenarios.update(have.id, { ...want, source: 'files' } as never, o);
      result.templates.updated++;
    } else result.templates.unchanged++;
  }

  const suites: TestSuite[] = [];
  for await (const s of client.testSuites.iterate(o)) suites.push(s);
  const byName = new Map(suites.map((s) => [s.name.trim().toLowerCase(), s]));
  for (const f of project.suites) {
    const ids = f.scenarios.map((slug) => result.slugs.get(slug)!);
    const have = byName.get(f.name.trim().toLowerCase());
    if (!have) {
      const made = await client.testSuites.create({ name: f.name, description: f.description, scenario_ids: ids, source: 'files' } as never, o);
      result.suiteIds.set(f.name.trim().toLowerCase(), made.id);
      result.suites.created++;
      continue;
    }
    result.suiteIds.set(f.name.trim().toLowerCase(), have.id);
    if (have.name !== f.name.trim() || have.description !== f.description || !same(have.scenario_ids, ids) || have.source !== 'files') {
      await client.testSuites.update(have.id, { name: f.name, description: f.description, scenario_ids: ids, source: 'files' } as never, o);
      result.suites.updated++;
    } else result.suites.unchanged++;
  }

  if (opts.prune) {
    // suites first: a template a pruned suite listed can then be deleted
    const keepSuites = new Set(project.suites.map((s) => s.name.trim().toLowerCase()));
    for (const s of suites) {
      if (s.source === 'files' && !keepSuites.has(s.name.trim().toLowerCase())) {
        await client.testSuites.delete(s.id, o);
        result.pruned.push(`suite ${s.name}`);
      }
    }
    const keepSlugs = new Set(project.scenarios.map((s) => s.slug));
    for (const s of all) {
      if (s.source === 'files' && s.slug && !keepSlugs.has(s.slug)) {
        await client.scenarios.delete(s.id, o);
        result.slugs.delete(s.slug);
        result.pruned.push(`template ${s.slug}`);
      }
    }
  }
  return result;
}

export function syncLines(r: SyncResult): string {
  const line = (kind: string, c: SyncCounts) => `${kind}: ${c.created} created, ${c.updated} updated, ${c.unchanged} unchanged\n`;
  return (r.agent ? line('agent', r.agent) : '') + line('templates', r.templates) + line('suites', r.suites) + r.pruned.map((p) => `deleted ${p}\n`).join('');
}
