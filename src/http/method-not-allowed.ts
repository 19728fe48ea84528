import type { FastifyInstance } from 'fastify';

/** The order methods are listed in an Allow header. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface RouteFacts {
  /** The route's config (e.g. `idempotent`), as declared. */
  config: Record<string, unknown>;
}

/**
 * Every API route as it is declared: which methods each path serves (for 405 and its Allow header) and
 * what each route declares (for the statuses the OpenAPI document lists). Paths are matched the way the
 * router does: a parameter is one non-empty segment, and one trailing slash is ignored.
 */
export interface RouteTable {
  /** The methods served on a concrete path (HEAD wherever GET is), or null when no API route has this path. */
  allowed(path: string): string[] | null;
  /**
   * Whether a concrete path is one of the API's own paths without parameters. Such a path (`/scenarios/generate`)
   * is not an id of its parametric sibling (`/scenarios/{id}`), whatever the method.
   */
  isStatic(path: string): boolean;
  /** What the route `METHOD /api/v1/path/{param}` (OpenAPI spelling) declared, if it exists. */
  facts(method: string, openApiPath: string): RouteFacts | undefined;
}

const toOpenApi = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const patternOf = (openApiPath: string) =>
  new RegExp(`^${openApiPath.split(/\{[^}]+\}/).map(escapeRegex).join('[^/]+')}$`);

export function createRouteTable(app: FastifyInstance, prefix = '/api/v1/'): RouteTable {
  const paths = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  const facts = new Map<string, RouteFacts>();
  app.addHook('onRoute', (opts) => {
    if (!opts.url.startsWith(prefix)) return;
    const path = toOpenApi(opts.url.length > 1 ? opts.url.replace(/\/$/, '') : opts.url);
    const entry = paths.get(path) ?? { pattern: patternOf(path), methods: new Set<string>() };
    for (const m of Array.isArray(opts.method) ? opts.method : [opts.method]) {
      entry.methods.add(m);
      if (m === 'GET') entry.methods.add('HEAD');
      facts.set(`${m} ${path}`, { config: (opts.config ?? {}) as Record<string, unknown> });
    }
    paths.set(path, entry);
  });
  return {
    allowed(raw) {
      const path = raw.length > 1 ? raw.replace(/\/$/, '') : raw;
      const methods = new Set<string>();
      let known = false;
      const exact = paths.get(path);
      for (const { pattern, methods: ms } of exact && !path.includes('{') ? [exact] : paths.values()) {
        if (!pattern.test(path)) continue;
        known = true;
        for (const m of ms) methods.add(m);
      }
      if (!known) return null;
      const order = (m: string) => (METHOD_ORDER.includes(m) ? METHOD_ORDER.indexOf(m) : METHOD_ORDER.length);
      return [...methods].sort((a, b) => order(a) - order(b) || a.localeCompare(b));
    },
    isStatic: (raw) => {
      const path = raw.length > 1 ? raw.replace(/\/$/, '') : raw;
      return !path.includes('{') && paths.has(path);
    },
    facts: (method, openApiPath) => facts.get(`${method} ${openApiPath}`),
  };
}
