import type { FastifyInstance } from 'fastify';
import type { FetchLike } from '../../src/client/index.js';

/** A fetch that hands requests to the Fastify app in-process, recording "METHOD /path" of each. */
export function injectFetch(app: FastifyInstance, seen: string[] = []): FetchLike {
  return async (url, init) => {
    const u = new URL(url);
    seen.push(`${init.method ?? 'GET'} ${u.pathname}`);
    const res = await app.inject({
      method: (init.method ?? 'GET') as 'GET',
      url: u.pathname + u.search,
      headers: init.headers as Record<string, string>,
      payload: init.body as string | undefined,
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : String(v));
    return new Response(res.statusCode === 204 ? null : res.body, { status: res.statusCode, headers });
  };
}
