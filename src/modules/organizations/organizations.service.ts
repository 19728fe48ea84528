import { asc, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { Database, Tx } from '../../db/client.js';
import { organizations, testSuites } from '../../db/schema.js';
import { loadBuiltinLibrary } from '../scenarios/library.js';

export interface Organization { id: string; name: string; created_at: string }

const toOrg = (r: typeof organizations.$inferSelect): Organization => ({ id: r.id, name: r.name, created_at: r.createdAt.toISOString() });

/** A new organization gets its "Default" suite: the whole built-in library in library order. */
async function createInTx(tx: Tx, name: string, now: Date): Promise<Organization> {
  const id = uuidv7();
  const [row] = await tx.orm.insert(organizations).values({ id, name, createdAt: now }).returning();
  await tx.orm.insert(testSuites).values({
    id: uuidv7(), orgId: id, name: 'Default', nameKey: 'default', isDefault: true,
    description: 'Every built-in scenario, in library order', scenarioIds: loadBuiltinLibrary().map((t) => t.id),
    createdAt: now, updatedAt: now,
  });
  return toOrg(row);
}

export async function findOrCreateOrganization(db: Database, name: string, now: Date): Promise<{ org: Organization; created: boolean }> {
  const trimmed = name.trim();
  if (!trimmed) throw new Error('organization name must not be empty');
  return db.transaction(async (tx) => {
    // serialize concurrent creators of the same name
    await tx.executeSql('select pg_advisory_xact_lock(hashtext($1))', [trimmed.toLowerCase()]);
    const [existing] = await tx.orm.select().from(organizations).where(sql`lower(${organizations.name}) = ${trimmed.toLowerCase()}`);
    if (existing) return { org: toOrg(existing), created: false };
    return { org: await createInTx(tx, trimmed, now), created: true };
  });
}

export async function listOrganizations(db: Database): Promise<Organization[]> {
  const rows = await db.orm.select().from(organizations).orderBy(asc(organizations.createdAt), asc(organizations.id));
  return rows.map(toOrg);
}

export async function countOrganizations(db: Database): Promise<number> {
  const [r] = await db.orm.select({ n: sql<number>`count(*)::int` }).from(organizations);
  return r.n;
}
