import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

// Serves the dashboard (web/dist, built by `npm run build:web`) at `/` without @fastify/static: the build is
// a handful of files, read once into memory on the first request, so no request ever touches the file
// system (no path traversal to defend against) and compressible files are gzipped once, not per request.

/** web/dist next to src/ (tsx, tests) or dist/ (the built server): both are one level below the repo root. */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../web/dist/', import.meta.url));

interface Asset { body: Buffer; gzip: Buffer | null; type: string; etag: string; cacheControl: string }

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json; charset=utf-8', '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.jpg': 'image/jpeg', '.ico': 'image/x-icon', '.webp': 'image/webp',
  '.woff2': 'font/woff2', '.txt': 'text/plain; charset=utf-8', '.webmanifest': 'application/manifest+json',
};
const COMPRESSIBLE = /^(text\/|application\/(json|manifest)|image\/svg)/;

/** Vite puts content-hashed files under /assets/: they never change, so browsers may keep them for a year. */
const cacheControlFor = (urlPath: string) => (urlPath.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');

/**
 * The SPA talks only to its own origin; recharts sets inline style attributes, hence 'unsafe-inline' for
 * styles only. Framing is refused (clickjacking).
 */
const HTML_HEADERS = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

function load(dir: string): Map<string, Asset> | null {
  if (!existsSync(join(dir, 'index.html'))) return null;
  const assets = new Map<string, Asset>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const file = join(d, name);
      if (statSync(file).isDirectory()) { walk(file); continue; }
      const urlPath = `/${relative(dir, file).split(sep).join('/')}`;
      const ext = name.slice(name.lastIndexOf('.')).toLowerCase();
      const type = TYPES[ext] ?? 'application/octet-stream';
      const body = readFileSync(file);
      const gzip = COMPRESSIBLE.test(type) && body.length > 1024 ? gzipSync(body, { level: 9 }) : null;
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      assets.set(urlPath, { body, gzip, type, etag, cacheControl: cacheControlFor(urlPath) });
    }
  };
  walk(dir);
  return assets;
}

function send(req: FastifyRequest, reply: FastifyReply, a: Asset) {
  reply.header('content-type', a.type).header('cache-control', a.cacheControl).header('etag', a.etag)
    .header('x-content-type-options', 'nosniff').header('vary', 'accept-encoding');
  if (a.type.startsWith('text/html')) reply.headers(HTML_HEADERS);
  if (req.headers['if-none-match'] === a.etag) return reply.code(304).send();
  if (a.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    return reply.header('content-encoding', 'gzip').send(a.gzip);
  }
  return reply.send(a.body);
}

const isApiPath = (path: string) => path === '/api' || path.startsWith('/api/') || path === '/docs' || path.startsWith('/docs/');

export function registerWebApp(app: FastifyInstance, dir: string | null = DEFAULT_WEB_DIR) {
  let assets: Map<string, Asset> | null | undefined;
  app.get('/*', { schema: { hide: true } }, async (req, reply) => {
    const raw = req.url.split('?')[0];
    // API and docs paths keep their JSON 404 (this wildcard only catches what no other route matched)
    if (isApiPath(raw)) return reply.callNotFound();
    if (assets === undefined) assets = dir ? load(dir) : null;
    if (!assets) {
      return reply.code(404).type('text/plain; charset=utf-8')
        .send('The dashboard is not built. Run "npm run build:web" (or "npm run build"), then reload. The API is at /api/v1, its docs at /docs.');
    }
    let path: string;
    try { path = decodeURIComponent(raw); } catch { path = raw; }
    const asset = assets.get(path === '/' ? '/index.html' : path);
    if (asset) return send(req, reply, asset);
    // a missing file is a 404; any other path is a client-side route of the SPA
    if (/\.[a-z0-9]+$/i.test(path)) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    return send(req, reply, assets.get('/index.html')!);
  });
}
