import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { scenarios } from '../../db/schema.js';
import { nameKey } from '../../http/common.js';
import { loadBuiltinLibrary } from './library.js';

/** The library's data files are the source of truth for built-in templates: upsert them at start. */
export async function syncBuiltinLibrary(db: Database, now: Date): Promise<number> {
  const lib = loadBuiltinLibrary();
  const rows = lib.map((t, i) => ({
    id: t.id, orgId: null, name: t.name, nameKey: nameKey(t.name), description: t.description, category: t.category,
    tags: t.tags, persona: t.persona, goal: t.goal, instructions: t.instructions, openingMessage: t.opening_message,
    script: t.script, criteria: t.criteria, passThreshold: t.pass_threshold, maxTurns: t.max_turns ?? null,
    isBuiltin: true, position: i, slug: t.slug, source: 'builtin', createdAt: now, updatedAt: now,
  }));
  await db.orm.insert(scenarios).values(rows).onConflictDoUpdate({
    target: scenarios.id,
    set: {
      name: sql`excluded.name`, nameKey: sql`excluded.name_key`, description: sql`excluded.description`,
      category: sql`excluded.category`, tags: sql`excluded.tags`, persona: sql`excluded.persona`, goal: sql`excluded.goal`,
      instructions: sql`excluded.instructions`, openingMessage: sql`excluded.opening_message`, script: sql`excluded.script`,
      criteria: sql`excluded.criteria`, passThreshold: sql`excluded.pass_threshold`, maxTurns: sql`excluded.max_turns`,
      position: sql`excluded.position`, slug: sql`excluded.slug`, source: sql`excluded.source`,
      updatedAt: sql`case when ${scenarios.criteria} is distinct from excluded.criteria or ${scenarios.script} is distinct from excluded.script or ${scenarios.name} is distinct from excluded.name then excluded.updated_at else ${scenarios.updatedAt} end`,
    },
  });
  return rows.length;
}
