import { createHash } from 'node:crypto';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../db/client.js';
import { idempotencyKeys } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { AppError } from './errors.js';

const TTL_MS = 24 * 3600_000;

declare module 'fastify' {
  interface FastifyContextConfig {
    idempotent?: boolean;
  }
  interface FastifyRequest {
    idempotency: { key: string } | null;
  }
}

function requestHash(req: FastifyRequest) {
  return createHash('sha256').update(`${req.method} ${req.url}\n${JSON.stringify(req.body ?? null)}`).digest('hex');
}

/**
 * Idempotency-Key on creating POSTs: the first request claims the key (state in_flight); its response
 * is stored and replayed for the same body within 24 h. A different body, or a retry while the first
 * is still running, gets 409 IDEMPOTENCY_CONFLICT. 5xx answers release the key so a retry can run.
 */
export function registerIdempotency(app: FastifyInstance, db: Database, clock: Clock) {
  app.decorateRequest('idempotency', null);
  app.addHook('preHandler', async (req, reply) => {
    if (!req.routeOptions.config?.idempotent) return;
    const raw = req.headers['idempotency-key'];
    if (raw === undefined) return;
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (!key || key.length > 255) throw new AppError('INVALID_FIELD_VALUE', 'Idempotency-Key must be 1-255 characters', { details: { field: 'Idempotency-Key' } });
    const orgId = req.auth.orgId;
    const hash = requestHash(req);
    const now = clock.now();
    await db.orm.delete(idempotencyKeys).where(and(eq(idempotencyKeys.orgId, orgId), eq(idempotencyKeys.key, key), lt(idempotencyKeys.createdAt, new Date(now - TTL_MS))));
    const inserted = await db.orm.insert(idempotencyKeys)
      .values({ orgId, key, requestHash: hash, state: 'in_flight', createdAt: new Date(now) })
      .onConflictDoNothing().returning({ key: idempotencyKeys.key });
    if (inserted.length > 0) {
      req.idempotency = { key };
      return;
    }
    const [row] = await db.orm.select().from(idempotencyKeys).where(and(eq(idempotencyKeys.orgId, orgId), eq(idempotencyKeys.key, key)));
    if (!row) throw new AppError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key is being reused concurrently; retry shortly');
    if (row.requestHash !== hash) throw new AppError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was used with a different request');
    if (row.state !== 'done') throw new AppError('IDEMPOTENCY_CONFLICT', 'A request with this Idempotency-Key is still in progress');
    reply.header('idempotent-replayed', 'true');
    return reply.code(row.responseStatus ?? 200).type('application/json; charset=utf-8').send(row.responseBody ?? '');
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (!req.idempotency) return payload;
    const { key } = req.idempotency;
    req.idempotency = null;
    const where = and(eq(idempotencyKeys.orgId, req.auth.orgId), eq(idempotencyKeys.key, key));
    if (reply.statusCode >= 500) {
      await db.orm.delete(idempotencyKeys).where(where);
    } else {
      await db.orm.update(idempotencyKeys)
        .set({ state: 'done', responseStatus: reply.statusCode, responseBody: typeof payload === 'string' ? payload : String(payload ?? '') })
        .where(and(where, sql`${idempotencyKeys.state} = 'in_flight'`));
    }
    return payload;
  });
}
