import type { FastifyInstance } from 'fastify';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from './errors.js';
import { isProtected } from './auth.js';

/**
 * Per-key request rate (RATE_LIMIT_PER_MINUTE requests per API key per minute), a fixed one-minute window
 * per API process.
 * Headers follow the IETF RateLimit header fields draft: RateLimit-Policy and RateLimit.
 */
export function registerRateLimit(app: FastifyInstance, perMinute: number) {
  const limiter = new RateLimiterMemory({ points: perMinute, duration: 60 });
  const policy = `"per-key";q=${perMinute};w=60`;
  app.addHook('onRequest', async (req, reply) => {
    if (!isProtected(req) || !req.auth) return;
    let res: RateLimiterRes;
    try {
      res = await limiter.consume(req.auth.keyId);
    } catch (rejected) {
      if (!(rejected instanceof RateLimiterRes)) throw rejected;
      const retry = Math.max(1, Math.ceil(rejected.msBeforeNext / 1000));
      throw new AppError('RATE_LIMITED', `Too many requests: at most ${perMinute} per minute per API key`, {
        headers: { 'retry-after': String(retry), 'ratelimit-policy': policy, ratelimit: `"per-key";r=0;t=${retry}` },
      });
    }
    reply.header('ratelimit-policy', policy);
    reply.header('ratelimit', `"per-key";r=${res.remainingPoints};t=${Math.ceil(res.msBeforeNext / 1000)}`);
  });
}
