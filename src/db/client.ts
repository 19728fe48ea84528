import type { PGlite } from '@electric-sql/pglite';
import { PgliteThread } from './pglite-thread.js';
import pg from 'pg';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { fileURLToPath } from 'node:url';
import * as schema from './schema.js';

export type Orm = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/** A transaction: the ORM bound to it plus a raw executor (pg-boss enqueues through it). */
export interface Tx extends SqlExecutor {
  orm: Orm;
}

/** One interface over two drivers; the rest of the code never knows which one it has. */
export interface Database extends SqlExecutor {
  kind: 'embedded' | 'postgres';
  orm: Orm;
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  migrate(): Promise<void>;
  /**
   * Runs `fn` while holding the start-up lock: with PostgreSQL, processes starting at once on a fresh
   * database take turns (schema set-up that is not safe to run concurrently goes through it).
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));

// drizzle keeps the connection of a transaction on its session; pg-boss needs that same connection
// to enqueue inside our transaction. Pinned drizzle version: see package.json.
function rawClientOf(tx: unknown): { query(text: string, values?: unknown[]): Promise<{ rows: any[] }> } {
  return (tx as { session: { client: any } }).session.client;
}

export async function openEmbedded(dataDir: string | null): Promise<Database> {
  // PGlite runs on a thread of its own (pglite-thread.ts), off the thread that runs conversations
  const client = new PgliteThread(dataDir);
  await client.waitReady;
  const orm = drizzlePglite(client as unknown as PGlite, { schema }) as unknown as Orm;
  const executeSql = async (text: string, values?: unknown[]) => {
    // PGlite's extended protocol takes one statement; parameterless multi-statement SQL (pg-boss's
    // own migrations) goes through exec().
    if (!values || values.length === 0) {
      const results = await client.exec(text);
      return { rows: results[results.length - 1]?.rows ?? [] };
    }
    return client.query(text, values);
  };
  return {
    kind: 'embedded',
    orm,
    executeSql,
    transaction: (fn) =>
      orm.transaction(async (tx) => {
        const raw = rawClientOf(tx);
        return fn({ orm: tx as unknown as Orm, executeSql: (text, values) => raw.query(text, values ?? []) });
      }),
    migrate: () => migratePglite(orm as any, { migrationsFolder }),
    // one process per data dir: nobody to take turns with
    exclusive: (fn) => fn(),
    close: () => client.close(),
  };
}

const STARTUP_LOCK = 724001;

/** A session-level advisory lock on a connection of its own, held while `fn` runs. */
async function underStartupLock<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query('select pg_advisory_lock($1)', [STARTUP_LOCK]);
    return await fn(c);
  } finally {
    await c.query('select pg_advisory_unlock($1)', [STARTUP_LOCK]).catch(() => {});
    c.release();
  }
}

export async function openPostgres(url: string, poolSize = 10): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client that loses its server (restart) must not crash the process.
  pool.on('error', () => {});
  const orm = drizzlePg(pool, { schema }) as unknown as Orm;
  return {
    kind: 'postgres',
    orm,
    executeSql: (text, values) => pool.query(text, values as any[]),
    transaction: (fn) =>
      orm.transaction(async (tx) => {
        const raw = rawClientOf(tx);
        return fn({ orm: tx as unknown as Orm, executeSql: (text, values) => raw.query(text, values ?? []) });
      }),
    // Many processes may start at once: one migrates, the others wait on the same advisory lock.
    migrate: () => underStartupLock(pool, (c) => migratePg(drizzlePg(c, { schema }) as any, { migrationsFolder })),
    exclusive: (fn) => underStartupLock(pool, () => fn()),
    close: () => pool.end(),
  };
}
