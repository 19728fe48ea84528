import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { agents } from '../../db/schema.js';
import type { Ctx, Deps } from '../../deps.js';
import { AppError, invalidField } from '../../http/errors.js';
import { nameKey, type Page } from '../../http/common.js';
import { agentConfigAad, openJson, sealJson } from '../../lib/secret-box.js';
import { isProviderName, PROVIDERS, validateAgentConfig, type ProviderName } from '../../providers/configs.js';
import { isUniqueViolation } from '../../db/errors.js';

export interface AgentView {
  id: string; provider: string; name: string; description: string | null; is_active: boolean;
  config_fields: string[]; created_at: string; updated_at: string;
}

type Row = typeof agents.$inferSelect;
export const agentView = (r: Row): AgentView => ({
  id: r.id, provider: r.provider, name: r.name, description: r.description, is_active: r.isActive,
  config_fields: r.configFields, created_at: r.createdAt.toISOString(), updated_at: r.updatedAt.toISOString(),
});

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

export async function createAgent(deps: Deps, ctx: Ctx, input: { provider: string; name: string; description?: string | null; config: unknown }) {
  const provider = checkProvider(input.provider);
  const name = checkName(input.name);
  const { config, fields } = validateAgentConfig(provider, input.config);
  const id = uuidv7();
  const now = new Date(deps.clock.now());
  try {
    const [row] = await deps.db.orm.insert(agents).values({
      id, orgId: ctx.orgId, provider, name, nameKey: nameKey(name), description: input.description ?? null, isActive: true,
      configSealed: sealJson(deps.box, config, agentConfigAad(ctx.orgId, id)), configFields: fields, createdAt: now, updatedAt: now,
    }).returning();
    return agentView(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(name);
    throw err;
  }
}

export async function listAgents(deps: Deps, ctx: Ctx, q: { provider?: string }, p: Page) {
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

export async function updateAgent(deps: Deps, ctx: Ctx, id: string, input: { provider?: string; name?: string; description?: string | null; config?: unknown; is_active?: boolean }) {
  const row = await getAgentRow(deps, ctx, id);
  if (!row) throw notFound();
  if (input.provider !== undefined && input.provider !== row.provider) {
    throw invalidField('provider', 'provider cannot be changed; create a new agent instead', input.provider);
  }
  const set: Partial<typeof agents.$inferInsert> = { updatedAt: new Date(deps.clock.now()) };
  if (input.name !== undefined) { set.name = checkName(input.name); set.nameKey = nameKey(set.name); }
  if (input.description !== undefined) set.description = input.description;
  if (input.is_active !== undefined) set.isActive = input.is_active;
  if (input.config !== undefined) {
    const { config, fields } = validateAgentConfig(row.provider as ProviderName, input.config);
    set.configSealed = sealJson(deps.box, config, agentConfigAad(ctx.orgId, id));
    set.configFields = fields;
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
