import { ErrorBodySchema } from './common.js';
import { ERROR_STATUS, type ErrorCode } from './errors.js';
import type { RouteTable } from './method-not-allowed.js';

/**
 * Every error status an operation can answer, documented from one set of shared responses
 * (components.responses), so the OpenAPI document stays the truth as routes are added: a route declares
 * only what its own logic answers (e.g. 409 ALREADY_EXISTS); what the HTTP layer, authentication, the
 * body limit and the rate limiter answer is derived here from the route's shape.
 */

const NOT_FOUND_CODES: ErrorCode[] = ['AGENT_NOT_FOUND', 'RUN_NOT_FOUND', 'SCENARIO_RUN_NOT_FOUND', 'NOT_FOUND'];
const codesOf = (status: number) => (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((c) => ERROR_STATUS[c] === status);

const REQUEST_ID = { description: 'Identifies the request in the service logs; quote it when reporting a problem', schema: { type: 'string' } };

interface Shared { name: string; description: string; codes: ErrorCode[]; headers?: Record<string, unknown> }

export const SHARED_ERROR_RESPONSES: Record<number, Shared> = {
  400: {
    name: 'BadRequest', codes: [...codesOf(400), ...NOT_FOUND_CODES],
    description: 'A field is missing or invalid, the body is not JSON, a resource referenced from the body does not exist (its not-found code), or the request is not valid HTTP (BAD_REQUEST, answered with Connection: close)',
  },
  401: { name: 'Unauthorized', codes: codesOf(401), description: 'Missing, malformed, unknown, revoked or expired API key or session' },
  403: { name: 'Forbidden', codes: codesOf(403), description: 'Not allowed: a built-in resource, or a request authenticated with the session cookie that changes data without the header x-rehearsal-csrf: 1' },
  404: { name: 'NotFound', codes: NOT_FOUND_CODES, description: 'The resource in the path does not exist, is in another organization, or its id is malformed' },
  405: {
    name: 'MethodNotAllowed', codes: codesOf(405),
    description: 'The path is known but does not serve this method (e.g. a path parameter left empty names the collection)',
    headers: { allow: { description: 'The methods the path serves', schema: { type: 'string' } } },
  },
  409: { name: 'Conflict', codes: codesOf(409), description: 'Name taken, state forbids the operation, or an Idempotency-Key reused with a different body or still in flight' },
  413: { name: 'PayloadTooLarge', codes: codesOf(413), description: 'The request body is over 1 MiB' },
  429: {
    name: 'TooManyRequests', codes: codesOf(429), description: 'Too many requests for this API key, or too many concurrent runs',
    headers: { 'retry-after': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } },
  },
  431: { name: 'HeadersTooLarge', codes: codesOf(431), description: 'The request headers are over the server limit (answered with Connection: close)' },
};

function sharedComponent(s: Shared) {
  return {
    description: s.description,
    headers: { 'x-request-id': REQUEST_ID, ...s.headers },
    content: {
      'application/json': {
        schema: { allOf: [{ $ref: '#/components/schemas/Error' }, { type: 'object', properties: { code: { type: 'string', enum: s.codes } } }] },
      },
    },
  };
}

const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);
const SAFE_METHODS = new Set(['get', 'head', 'options']);

/** The concrete paths an operation's URL becomes when one path parameter is "", "." or "..". */
function* dotVariants(path: string): Generator<string> {
  const segs = path.split('/');
  const fill = (xs: string[]) => xs.map((x) => (/^\{[^}]+\}$/.test(x) ? 'x' : x)).join('/');
  for (let i = 0; i < segs.length; i++) {
    if (!/^\{[^}]+\}$/.test(segs[i])) continue;
    yield fill([...segs.slice(0, i), ...segs.slice(i + 1)]);
    if (i > 1) yield fill([...segs.slice(0, i - 1), ...segs.slice(i + 1)]);
  }
}

/** The error statuses an operation can answer beyond the ones its route declares. */
function derivedStatuses(method: string, path: string, op: any, routes: RouteTable): number[] {
  const out = [400, 431]; // the HTTP layer, and the query/body guards every API route runs
  const isPublic = Array.isArray(op.security) && op.security.length === 0;
  if (!isPublic) {
    out.push(401, 429);
    if (!SAFE_METHODS.has(method)) out.push(403); // the CSRF check of cookie sessions
  }
  if (/\{[^}]+\}/.test(path)) out.push(404);
  if (BODY_METHODS.has(method)) out.push(413);
  if (routes.facts(method.toUpperCase(), path)?.config.idempotent) out.push(409);
  // clients resolve dot segments and the router ignores a trailing slash: a path parameter given as "" (last),
  // "." or ".." names a shorter path, which may be known but not serve this method
  if ([...dotVariants(path)].some((p) => { const a = routes.allowed(p); return a !== null && !a.includes(method.toUpperCase()); })) out.push(405);
  return out;
}

/** The @fastify/swagger `transformObject` hook: shared error responses on every operation. */
export function documentErrorResponses(routes: RouteTable) {
  return (document: { openapiObject: any } | { swaggerObject: any }) => {
    if (!('openapiObject' in document)) return document.swaggerObject;
    const { openapiObject } = document;
    const components = (openapiObject.components ??= {});
    const { $id: _id, ...errorSchema } = JSON.parse(JSON.stringify(ErrorBodySchema));
    components.schemas = { ...components.schemas, Error: { ...errorSchema, title: 'ErrorBody' } };
    components.responses = { ...components.responses };
    for (const s of Object.values(SHARED_ERROR_RESPONSES)) components.responses[s.name] = sharedComponent(s);
    for (const [path, item] of Object.entries<any>(openapiObject.paths ?? {})) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (!op || typeof op !== 'object' || !op.responses) continue;
        const statuses = new Set([
          ...Object.keys(op.responses).map(Number).filter((s) => s >= 400 && s < 500),
          ...derivedStatuses(method, path, op, routes),
        ]);
        const responses: Record<string, unknown> = {};
        for (const [code, r] of Object.entries(op.responses)) if (!(Number(code) >= 400 && Number(code) < 500)) responses[code] = r;
        for (const s of [...statuses].sort((a, b) => a - b)) {
          const shared = SHARED_ERROR_RESPONSES[s];
          if (!shared) throw new Error(`${method.toUpperCase()} ${path} declares ${s}, which has no shared error response`);
          responses[String(s)] = { $ref: `#/components/responses/${shared.name}` };
        }
        op.responses = responses;
      }
    }
    return openapiObject;
  };
}
