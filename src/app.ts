import Fastify, { LogController, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import sjson from 'secure-json-parse';
import type { Deps } from './deps.js';
import { AppError } from './http/errors.js';
import { registerAuth } from './http/auth.js';
import { clientErrorHandler } from './http/client-errors.js';
import { registerErrorHandling } from './http/error-handler.js';
import { createRouteTable } from './http/method-not-allowed.js';
import { documentErrorResponses } from './http/openapi-responses.js';
import { registerIdempotency } from './http/idempotency.js';
import { registerRateLimit } from './http/rate-limit.js';
import { frameworkErrors, registerInputGuards } from './http/input-guards.js';
import { SESSION_COOKIE } from './http/cookies.js';
import { registerWebApp } from './http/web-static.js';
import { fileJsonSchema, FILE_KINDS, type FileKind } from './files/file-schemas.js';
import { validatorCompiler } from './http/validation.js';
import { apiRoutes } from './routes.js';

export const BODY_LIMIT = 1024 * 1024;

export interface AppOptions {
  logger?: boolean | object;
  /** The built dashboard served at `/`; null serves none. Default: web/dist of this checkout. */
  webDir?: string | null;
}

/** The Fastify app without listen(): the server entry and the tests share it. */
export async function buildApp(deps: Deps, opts: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: BODY_LIMIT,
    genReqId: () => crypto.randomUUID(),
    requestIdHeader: false,
    // per-request access logs cost CPU on the hot path; errors are still logged with their request id
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    ajv: { customOptions: { removeAdditional: false } },
    frameworkErrors: frameworkErrors(() => deps.db, () => deps.clock),
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, sjson.parse(text, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(new AppError('INVALID_JSON', 'The request body is not valid JSON'), undefined);
    }
  });

  const routes = createRouteTable(app);
  registerErrorHandling(app, routes);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Rehearsal API', version: '1.0.0',
        description: 'Test conversational AI agents with simulated callers and auditable judges. Every request needs `Authorization: Bearer sk_live_…` (the dashboard signs in once with a key and then uses a session cookie, see Sessions).',
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'sk_live_ followed by 40 letters and digits' },
          session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'The dashboard session from POST /api/v1/sessions; changing requests also need the header x-rehearsal-csrf: 1' },
        },
      },
      security: [{ bearer: [] }, { session: [] }],
    },
    transformObject: documentErrorResponses(routes),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  registerAuth(app, deps.db, deps.clock);
  registerRateLimit(app, deps.config.rateLimitPerMinute);
  registerIdempotency(app, deps.db, deps.clock);
  registerInputGuards(app);

  await app.register(apiRoutes(deps), { prefix: '/api/v1' });
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  for (const kind of Object.keys(FILE_KINDS) as FileKind[]) {
    const doc = fileJsonSchema(kind);
    app.get(`/api/v1/schemas/${kind}.json`, { schema: { hide: true } }, async () => doc);
  }
  registerWebApp(app, opts.webDir);
  return app;
}
