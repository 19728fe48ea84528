import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/client.js';
import type { Clock } from '../lib/clock.js';
import { authenticate } from './auth.js';
import { AppError, invalidField } from './errors.js';
import { sendError } from './error-handler.js';

const MAX_DEPTH = 64;
const PAGE_PARAM = /^\d{1,9}$/;

// a lone UTF-16 surrogate is not Unicode text: PostgreSQL's json input refuses it
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const badText = (s: string) => s.includes('\u0000') || LONE_SURROGATE.test(s);

const join = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));

/**
 * PostgreSQL stores no NUL character in text or jsonb, and deep nesting overflows stacks further in:
 * both are refused here as field errors, before any schema or database sees them.
 */
function scan(v: unknown, path: string, depth: number): void {
  if (depth > MAX_DEPTH) throw invalidField(path || 'body', `${path || 'the body'} is nested deeper than ${MAX_DEPTH} levels`);
  if (typeof v === 'string') {
    if (badText(v)) throw invalidField(path || 'body', `${path || 'the body'} must be Unicode text without NUL characters`);
  } else if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) scan(v[i], join(path, i), depth + 1);
  } else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (badText(k)) throw invalidField(path || 'body', 'field names must be Unicode text without NUL characters');
      scan(x, join(path, k), depth + 1);
    }
  }
}

function checkQuery(q: Record<string, unknown>) {
  for (const [k, v] of Object.entries(q)) {
    for (const s of Array.isArray(v) ? v : [v]) {
      if (typeof s !== 'string') continue;
      if (badText(s)) throw invalidField(k, `${k} must be Unicode text without NUL characters`);
      // plain decimal digits only: no "0x10", "1e3", "+5", and nothing past what an offset can mean
      if ((k === 'limit' || k === 'offset') && !PAGE_PARAM.test(s)) throw invalidField(k, `${k} must be a non-negative integer below 10^9`, s);
    }
  }
}

export function registerInputGuards(app: FastifyInstance) {
  app.addHook('preValidation', async (req) => {
    if (!req.url.startsWith('/api/v1/')) return;
    if (req.query && typeof req.query === 'object') checkQuery(req.query as Record<string, unknown>);
    if (req.body !== undefined) scan(req.body, '', 0);
  });
}

const RESOURCE_CODES: Array<[RegExp, 'AGENT_NOT_FOUND' | 'RUN_NOT_FOUND' | 'SCENARIO_RUN_NOT_FOUND']> = [
  [/^\/api\/v1\/agents\//, 'AGENT_NOT_FOUND'],
  [/^\/api\/v1\/runs\//, 'RUN_NOT_FOUND'],
  [/^\/api\/v1\/scenario-runs\//, 'SCENARIO_RUN_NOT_FOUND'],
];

/**
 * Errors the router raises before any hook runs (a path segment that is not valid percent-encoding, or
 * too long to be an id). They still answer in the one envelope, with x-request-id, authentication first:
 * such a segment names no resource, so the resource's 404.
 */
export function frameworkErrors(db: () => Database, clock: () => Clock) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', req.id);
    const path = (req.raw.url ?? '').split('?')[0];
    const answer = async () => {
      if (path.startsWith('/api/v1/')) await authenticate(db(), clock(), req.headers.authorization);
      const code = RESOURCE_CODES.find(([re]) => re.test(path))?.[1] ?? 'NOT_FOUND';
      return new AppError(code, err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'Not found (path segment too long)' : 'Not found (malformed path)');
    };
    answer().then((e) => sendError(reply, e), (e) => sendError(reply, e instanceof AppError ? e : new AppError('INTERNAL_ERROR', 'Internal error')));
  };
}
