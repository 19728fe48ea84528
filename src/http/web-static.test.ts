import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from './error-handler.js';
import { registerWebApp } from './web-static.js';

// The static half of the app in isolation: a fake build in a temp dir, the real error handling around it.

describe('serving the dashboard build', () => {
  let dir: string;
  let app: FastifyInstance;
  const bundle = `console.log(${JSON.stringify('x'.repeat(4000))});`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rehearsal-web-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Rehearsal</title><div id="root"></div>');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), bundle);
    writeFileSync(join(dir, 'assets', 'index-abc123.css'), 'body{margin:0}');
    writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    app = Fastify();
    registerErrorHandling(app);
    app.get('/api/v1/ping', async () => ({ ok: true }));
    registerWebApp(app, dir);
    await app.ready();
  });
  afterAll(async () => { await app.close(); rmSync(dir, { recursive: true, force: true }); });

  it('serves index.html at / with no-cache, an ETag and the security headers', async () => {
    const res = await app.inject({ url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.body).toContain('<div id="root">');
    const again = await app.inject({ url: '/', headers: { 'if-none-match': String(res.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });

  it('serves hashed assets with their content type and a year of immutable caching, gzipped when accepted', async () => {
    const js = await app.inject({ url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip, br' } });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(js.rawPayload).toString()).toBe(bundle);
    const plain = await app.inject({ url: '/assets/index-abc123.js' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(bundle);
    const css = await app.inject({ url: '/assets/index-abc123.css' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    const svg = await app.inject({ url: '/favicon.svg' });
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    expect(svg.headers['cache-control']).toBe('no-cache');
  });

  it('falls back to index.html for client-side routes, but not for missing files', async () => {
    for (const url of ['/runs', '/runs/TR-1', '/scenario-runs/0193?x=1', '/settings/api-keys']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
    }
    expect((await app.inject({ url: '/assets/missing-123.js' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/../../etc/passwd' })).headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('leaves /api and /docs alone: unknown API paths keep the JSON 404 envelope', async () => {
    expect((await app.inject({ url: '/api/v1/ping' })).json()).toEqual({ ok: true });
    for (const url of ['/api/v1/nope', '/api', '/docs/nope']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('says how to build the dashboard when there is no build', async () => {
    const bare = Fastify();
    registerErrorHandling(bare);
    registerWebApp(bare, join(dir, 'does-not-exist'));
    const res = await bare.inject({ url: '/' });
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('npm run build:web');
    await bare.close();
  });
});
