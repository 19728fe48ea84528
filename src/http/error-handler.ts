import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, statusOf, type ErrorBody } from './errors.js';
import { createRouteTable, type RouteTable } from './method-not-allowed.js';
import { toAppError } from './validation.js';

export function sendError(reply: FastifyReply, err: AppError) {
  const body: ErrorBody = { error: err.message, code: err.code };
  if (err.details) body.details = err.details;
  if (err.headers) reply.headers(err.headers);
  return reply.code(statusOf(err)).type('application/json; charset=utf-8').send(body);
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

/**
 * The one error envelope for everything the router reaches. A request no route matches is 404 NOT_FOUND,
 * or 405 METHOD_NOT_ALLOWED with an Allow header when its path is known: whatever the method (OPTIONS,
 * PROPFIND, …), since the 404 handler sees every method the router has no route for.
 */
export function registerErrorHandling(app: FastifyInstance, routes: RouteTable = createRouteTable(app)) {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const known = classify(err as any, req);
    if (known) return sendError(reply, known);
    req.log.error({ err, reqId: req.id }, 'unexpected error');
    return sendError(reply, new AppError('INTERNAL_ERROR', `Internal error (request ${req.id})`));
  });
  const notAllowed = (req: FastifyRequest, reply: FastifyReply, path: string): boolean => {
    const allowed = routes.allowed(path);
    if (!allowed || allowed.includes(req.method)) return false;
    const allow = allowed.join(', ');
    reply.header('allow', allow);
    sendError(reply, new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on this path (allowed: ${allow})`));
    return true;
  };
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    if (notAllowed(req, reply, path)) return;
    return sendError(reply, new AppError('NOT_FOUND', `No route for ${req.method} ${path}`));
  });
  // The router sends `PUT /scenarios/generate` to `PUT /scenarios/{id}`; a fixed path of ours is never an id,
  // so the method it does not serve is answered 405 (after authentication, before the body is checked).
  app.addHook('preValidation', async (req, reply) => {
    if (!req.routeOptions.url?.includes(':')) return;
    const path = req.url.split('?')[0];
    if (routes.isStatic(path) && notAllowed(req, reply, path)) return reply;
  });
}
