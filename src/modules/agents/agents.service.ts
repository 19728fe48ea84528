import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { agents } from '../../db/schema.js';
import type { Ctx, Deps } from '../../deps.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { nameKey, type Page } from '../../http/common.js';
import { agentConfigAad, openJson, sealJson } from '../../lib/secret-box.js';
import { isProviderName, PROVIDERS, validateAgentConfig, type ProviderName } from '../../providers/configs.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { AgentTools } from '../../engine/types.js';
import type { AgentQuery, CreateAgentInput, UpdateAgentInput } from './agents.schemas.js';

export interface AgentView {
  id: string; provider: string; name: string; description: string | null; is_active: boolean;
  config_fields: string[]; tool_names: string[] | null; tool_aliases: Record<string, string | null>;
  created_at: string; updated_at: string;
}

type Row = typeof agents.$inferSelect;
export const agentView = (r: Row): AgentView => ({
  id: r.id, provider: r.provider, name: r.name, description: r.description, is_active: r.isActive,
  config_fields: r.configFields, tool_names: r.toolNames ?? null, tool_aliases: r.toolAliases ?? {},
  created_at: r.createdAt.toISOString(), updated_at: r.updatedAt.toISOString(),
});

/** What tool checks know of an agent's tools (see src/engine/judge/checks.ts). */
export const agentTools = (r: Pick<Row, 'toolNames' | 'toolAliases'>): AgentTools => ({ tool_names: r.toolNames ?? null, tool_aliases: r.toolAliases ?? {} });

export interface ToolFields {
  tool_names?: string[] | null;
  tool_aliases?: Record<string, string | null>;
}

/** provider_4 declares its tools in config.tools; elsewhere the platform holds them and we cannot know. */
function defaultToolNames(provider: ProviderName, config: Record<string, unknown>): string[] | null {
  if (provider !== 'provider_4') return null;
  const tools = Array.isArray(config.tools) ? (config.tools as { function?: { name?: unknown } }[]) : [];
  return [...new Set(tools.map((t) => t.function?.name).filter((n): n is string => typeof n === 'string'))];
}

function checkToolFields(input: ToolFields) {
  for (const [i, n] of (input.tool_names ?? []).entries()) {
    if (!n.trim()) throw invalidField(`tool_names.${i}`, 'tool names must not be blank', n);
  }
  if (input.tool_names && new Set(input.tool_names).size !== input.tool_names.length) {
    throw invalidField('tool_names', 'tool_names must not repeat a name', input.tool_names);
  }
  for (const [from, to] of Object.entries(input.tool_aliases ?? {})) {
    if (!from.trim() || from.length > 200) throw invalidField('tool_aliases', 'tool_aliases keys must be template tool names of 1 to 200 characters', from);
    if (to !== null && !to.trim()) throw invalidField(`tool_aliases.${from}`, "an alias must name the agent's tool, or be null for \"no such tool\"", to);
  }
}

const notFound = () => new AppError('AGENT_NOT_FOUND', 'Agent not found');
const taken = (name: string) => new AppError('ALREADY_EXISTS', `An agent named "${name}" already exists`, { details: { field: 'name' } });

function checkProvider(p: string): ProviderName {
  if (!isProviderName(p)) throw invalidField('provider', `provider must be one of ${PROVIDERS.join(', ')}`, p);
  return p;
}

function checkName(name: string) {
  const n = name.trim();
  if (!n) throw invalidField('name', 'name must not be blank');
  return n;
}

export async function getAgentRow(deps: Deps, ctx: Ctx, id: string): Promise<Row | null> {
  const [row] = await deps.db.orm.select().from(agents)
    .where(and(eq(agents.orgId, ctx.orgId), eq(agents.id, id), isNull(agents.deletedAt)));
  return row ?? null;
}

/** The decrypted provider config; only the engine and validate ever need it. */
export function agentConfig(deps: Deps, row: Row): Record<string, unknown> {
  return openJson(deps.box, row.configSealed, agentConfigAad(row.orgId, row.id));
}

export async function createAgent(deps: Deps, ctx: Ctx, input: CreateAgentInput) {
  const provider = checkProvider(input.provider);
  const name = checkName(input.name);
  const { config, fields } = validateAgentConfig(provider, input.config);
  checkToolFields(input);
  const toolNamesSet = input.tool_names !== undefined;
  const id = uuidv7();
  const now = new Date(deps.clock.now());
  try {
    const [row] = await deps.db.orm.insert(agents).values({
      id, orgId: ctx.orgId, provider, name, nameKey: nameKey(name), description: input.description ?? null, isActive: true,
      configSealed: sealJson(deps.box, config, agentConfigAad(ctx.orgId, id)), configFields: fields, createdAt: now, updatedAt: now,
      toolNames: toolNamesSet ? input.tool_names! : defaultToolNames(provider, config), toolNamesSet, toolAliases: input.tool_aliases ?? {},
    }).returning();
    return agentView(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(name);
    throw err;
  }
}

export async function listAgents(deps: Deps, ctx: Ctx, q: AgentQuery, p: Page) {
  const where = and(eq(agents.orgId, ctx.orgId), isNull(agents.deletedAt), q.provider ? eq(agents.provider, checkProvider(q.provider)) : undefined);
  const [rows, [{ n }]] = await Promise.all([
    deps.db.orm.select().from(agents).where(where).orderBy(desc(agents.createdAt), desc(agents.id)).limit(p.limit).offset(p.offset),
    deps.db.orm.select({ n: sql<number>`count(*)::int` }).from(agents).where(where),
  ]);
  return { agents: rows.map(agentView), total: n, ...p };
}

export async function getAgent(deps: Deps, ctx: Ctx, id: string) {
  const row = await getAgentRow(deps, ctx, id);
  if (!row) throw notFound();
  return agentView(row);
}

const stableJson = (v: unknown): string => JSON.stringify(v, (_k, x) =>
  (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));

export async function updateAgent(deps: Deps, ctx: Ctx, id: string, input: UpdateAgentInput) {
  const row = await getAgentRow(deps, ctx, id);
  if (!row) throw notFound();
  if (input.provider !== undefined && input.provider !== row.provider) {
    throw invalidField('provider', 'provider cannot be changed; create a new agent instead', input.provider);
  }
  checkToolFields(input);
  const set: Partial<typeof agents.$inferInsert> = { updatedAt: new Date(deps.clock.now()) };
  if (input.tool_names !== undefined) { set.toolNames = input.tool_names; set.toolNamesSet = true; }
  if (input.tool_aliases !== undefined) set.toolAliases = input.tool_aliases;
  if (input.name !== undefined) { set.name = checkName(input.name); set.nameKey = nameKey(set.name); }
  if (input.description !== undefined) set.description = input.description;
  if (input.is_active !== undefined) set.isActive = input.is_active;
  if (input.config !== undefined) {
    const { config, fields } = validateAgentConfig(row.provider as ProviderName, input.config);
    set.configSealed = sealJson(deps.box, config, agentConfigAad(ctx.orgId, id));
    set.configFields = fields;
    // a default follows the config it came from; names the user set stay theirs
    if (input.tool_names === undefined && !row.toolNamesSet) set.toolNames = defaultToolNames(row.provider as ProviderName, config);
    // an update that changes nothing keeps updated_at (so `rehearsal sync` can report "unchanged")
    const same = stableJson(openJson(deps.box, row.configSealed, agentConfigAad(ctx.orgId, id))) === stableJson(config)
      && (set.name === undefined || set.name === row.name) && (set.description === undefined || set.description === row.description)
      && (set.isActive === undefined || set.isActive === row.isActive)
      && (set.toolNames === undefined || (stableJson(set.toolNames) === stableJson(row.toolNames) && (input.tool_names === undefined || row.toolNamesSet)))
      && (set.toolAliases === undefined || stableJson(set.toolAliases) === stableJson(row.toolAliases));
    if (same) return agentView(row);
  }
  try {
    const [updated] = await deps.db.orm.update(agents).set(set)
      .where(and(eq(agents.orgId, ctx.orgId), eq(agents.id, id), isNull(agents.deletedAt))).returning();
    if (!updated) throw notFound();
    return agentView(updated);
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(set.name ?? row.name);
    throw err;
  }
}

/** Permanent for the API; the row stays so runs keep agent_id/agent_name. In-flight runs are canceled. */
export async function deleteAgent(deps: Deps, ctx: Ctx, id: string, cancelRunsOfAgent: (agentId: string) => Promise<void>) {
  const rows = await deps.db.orm.update(agents).set({ deletedAt: new Date(deps.clock.now()), isActive: false })
    .where(and(eq(agents.orgId, ctx.orgId), eq(agents.id, id), isNull(agents.deletedAt))).returning({ id: agents.id });
  if (rows.length === 0) throw notFound();
  await cancelRunsOfAgent(id);
}

export async function validateAgent(deps: Deps, ctx: Ctx, id: string) {
  const row = await getAgentRow(deps, ctx, id);
  if (!row) throw notFound();
  const adapter = deps.adapters[row.provider as ProviderName];
  if (!adapter) {
    return { valid: false, message: `Credential checks for ${row.provider} are not available in this build`, details: { error_code: 'provider_error' } };
  }
  const signal = AbortSignal.timeout(15_000);
  try {
    return await adapter.validate(agentConfig(deps, row), { signal, clock: deps.clock });
  } catch (err) {
    const timedOut = signal.aborted;
    return {
      valid: false,
      message: timedOut ? 'The provider did not answer within 15 s' : `Could not reach the provider: ${(err as Error).message}`,
      details: { error_code: timedOut ? 'timeout' : 'unreachable' },
    };
  }
}
