import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorBody } from './errors.js';
import { toAppError } from './validation.js';

export function sendError(reply: FastifyReply, err: AppError) {
  const body: ErrorBody = { error: err.message, code: err.code };
  if (err.details) body.details = err.details;
  if (err.headers) reply.headers(err.headers);
  return reply.code(err.status).type('application/json; charset=utf-8').send(body);
}

function classify(err: FastifyError & { validation?: any[]; validationContext?: string }, req: FastifyRequest): AppError | null {
  if (err instanceof AppError) return err;
  if (err.validation) {
    const part = err.validationContext ?? 'body';
    const schema = (req.routeOptions.schema as any)?.[part === 'querystring' ? 'querystring' : part];
    const input = part === 'body' ? req.body : part === 'querystring' ? req.query : (req as any)[part];
    return toAppError(err.validation, part, input, schema?.required ?? []);
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than 1 MiB');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('INVALID_JSON', 'Request bodies must be JSON (Content-Type: application/json)');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('INVALID_JSON', 'The request body is not valid JSON');
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return new AppError('INVALID_FIELD_VALUE', 'The request URL is malformed');
  }
  if (err instanceof SyntaxError) return new AppError('INVALID_JSON', 'The request body is not valid JSON');
  const status = err.statusCode ?? 500;
  if (status === 404) return new AppError('NOT_FOUND', 'Not found');
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large');
  if (status >= 400 && status < 500) return new AppError('INVALID_FIELD_VALUE', 'The request is invalid');
  return null;
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const known = classify(err as any, req);
    if (known) return sendError(reply, known);
    req.log.error({ err, reqId: req.id }, 'unexpected error');
    return sendError(reply, new AppError('INTERNAL_ERROR', `Internal error (request ${req.id})`));
  });
  app.setNotFoundHandler((req, reply) =>
    sendError(reply, new AppError('NOT_FOUND', `No route for ${req.method} ${req.url.split('?')[0]}`)));
}

/**
 * Answers 405 for a known path with a method it does not have. Collects routes as they are
 * declared and adds the missing methods once everything is registered.
 */
export function registerMethodNotAllowed(app: FastifyInstance) {
  const routes = new Map<string, Set<string>>();
  app.addHook('onRoute', (opts) => {
    if (!opts.url.startsWith('/api/v1/') || (opts.config as any)?.methodNotAllowed) return;
    const methods = Array.isArray(opts.method) ? opts.method : [opts.method];
    const set = routes.get(opts.url) ?? new Set<string>();
    for (const m of methods) set.add(m);
    routes.set(opts.url, set);
  });
  return () => {
    for (const [url, methods] of routes) {
      const missing = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !methods.has(m));
      if (missing.length === 0) continue;
      const allow = [...methods].filter((m) => m !== 'HEAD').join(', ');
      app.route({
        method: missing as any,
        url,
        config: { methodNotAllowed: true },
        // not operations: they would otherwise show up in the OpenAPI document (and the generated client)
        schema: { hide: true },
        handler: (req, reply) => {
          reply.header('allow', allow);
          return sendError(reply, new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on this path (allowed: ${allow})`));
        },
      });
    }
  };
}
