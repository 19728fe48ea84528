import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/client.js';
import type { Metrics } from '../lib/metrics.js';

/**
 * Unauthenticated operator endpoints outside /api/v1: liveness, readiness (the database answers) and
 * Prometheus metrics (aggregate counts only, nothing per organization).
 */
export function registerOps(app: FastifyInstance, db: Database, metrics: Metrics | undefined, isDraining: () => boolean = () => false) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    if (isDraining()) return reply.code(503).send({ status: 'draining' });
    try {
      await db.executeSql('select 1', []);
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'unavailable', reason: 'database' });
    }
  });
  if (metrics) {
    app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
      reply.type(metrics.registry.contentType);
      return metrics.registry.metrics();
    });
  }
}
