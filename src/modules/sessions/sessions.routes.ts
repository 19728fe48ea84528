import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { CSRF_HEADER } from '../../http/auth.js';
import { errors, Nullable, Timestamp, Uuid } from '../../http/common.js';
import { clearedSessionCookies, readCookie, SESSION_COOKIE, sessionCookies } from '../../http/cookies.js';
import { closeSession, describeSession, openSession, SESSION_TTL_SECONDS } from './sessions.service.js';

export const SessionSchema = Type.Object({
  organization: Type.Object({ id: Uuid, name: Type.String() }),
  api_key: Type.Object({
    id: Uuid, name: Type.String(), prefix: Type.String(), last_four: Type.String(), expires_at: Nullable(Timestamp),
  }, { description: 'The key the session was opened with; revoking it ends the session' }),
  created_at: Timestamp,
  expires_at: Timestamp,
}, { $id: 'Session' });

const tags = ['Sessions'];
const cookieNote = `The session is an HttpOnly, SameSite=Strict cookie \`${SESSION_COOKIE}\` (Secure over https, path /api/v1). ` +
  `Requests authenticated with it that change data (POST, PUT, PATCH, DELETE) must send \`${CSRF_HEADER}: 1\`, else 403 FORBIDDEN.`;

export const sessionRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/sessions', {
    schema: { operationId: 'createSession',
      tags, security: [],
      summary: 'Sign in to the dashboard: exchange an API key for a session cookie',
      description: `${cookieNote} The key is checked like a Bearer key and never stored in the browser. The session lasts ${SESSION_TTL_SECONDS / 3600} h and ends at once when its key is revoked or expires.`,
      body: Type.Object({ api_key: Type.String({ maxLength: 256, description: 'sk_live_… (the key, not its id)' }) }, { additionalProperties: false }),
      response: { 201: SessionSchema, ...errors(400) },
    },
  }, async (req, reply) => {
    const { token, session } = await openSession(deps, req.body.api_key, readCookie(req, SESSION_COOKIE));
    reply.header('set-cookie', sessionCookies(req, token, SESSION_TTL_SECONDS)).header('cache-control', 'no-store');
    return reply.code(201).send(session);
  });

  app.get('/sessions/current', {
    schema: { operationId: 'getCurrentSession',
      tags, summary: 'The signed-in session: organization and API key (404 NOT_FOUND when called with a Bearer key)',
      description: cookieNote,
      response: { 200: SessionSchema, ...errors(404) },
    },
  }, async (req) => describeSession(deps, req.auth));

  app.delete('/sessions/current', {
    schema: { operationId: 'deleteCurrentSession',
      tags, summary: 'Sign out: end the session and clear its cookie (404 NOT_FOUND when called with a Bearer key)',
      description: cookieNote,
      response: { 204: Type.Null(), ...errors(403, 404) },
    },
  }, async (req, reply) => {
    await closeSession(deps, req.auth);
    return reply.code(204).header('set-cookie', clearedSessionCookies(req)).send(null);
  });
};
