import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Deps } from './deps.js';
import { createApiKey } from './modules/api-keys/api-keys.service.js';
import { findOrCreateOrganization, listOrganizations } from './modules/organizations/organizations.service.js';

/**
 * While `rehearsal serve` holds an embedded data dir, key and organization commands reach it through
 * a Unix socket inside that dir. The socket file's permissions (0600, owner only) are the authority.
 */
export const controlSocketPath = (dataDir: string) => path.join(path.resolve(dataDir), 'control.sock');

export type ControlRequest =
  | { cmd: 'keys.create'; org: string; name?: string; expires_at?: string | null }
  | { cmd: 'orgs.list' };

/** The database and the clock are all a command needs: the CLI answers it from a bare runtime when no server runs. */
export type ControlDeps = Pick<Deps, 'db' | 'clock'>;

export async function handleControl(deps: ControlDeps, req: ControlRequest): Promise<unknown> {
  if (req.cmd === 'orgs.list') return listOrganizations(deps.db);
  if (req.cmd === 'keys.create') {
    const { org } = await findOrCreateOrganization(deps.db, req.org, new Date(deps.clock.now()));
    const k = await createApiKey(deps, { orgId: org.id }, { name: req.name ?? 'cli', expires_at: req.expires_at ?? null });
    return { organization_id: org.id, organization_name: org.name, api_key_id: k.id, key: k.key, expires_at: k.expires_at };
  }
  throw new Error('unknown command');
}

export function startControlServer(dataDir: string, deps: ControlDeps): Promise<() => Promise<void>> {
  const file = controlSocketPath(dataDir);
  fs.rmSync(file, { force: true });
  const server = net.createServer((sock) => {
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('data', async (chunk) => {
      buf += chunk;
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      const line = buf.slice(0, nl);
      try {
        const result = await handleControl(deps, JSON.parse(line));
        sock.end(JSON.stringify({ ok: true, result }) + '\n');
      } catch (err) {
        sock.end(JSON.stringify({ ok: false, error: (err as Error).message }) + '\n');
      }
    });
    sock.on('error', () => {});
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const old = process.umask(0o177);
    server.listen(file, () => {
      process.umask(old);
      fs.chmodSync(file, 0o600);
      resolve(() => new Promise<void>((r) => server.close(() => { fs.rmSync(file, { force: true }); r(); })));
    });
  });
}

/** Sends one request to a running server; null when none is listening. */
export function sendControl(dataDir: string, req: ControlRequest): Promise<{ ok: boolean; result?: any; error?: string } | null> {
  const file = controlSocketPath(dataDir);
  if (!fs.existsSync(file)) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const sock = net.createConnection(file);
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('connect', () => sock.write(JSON.stringify(req) + '\n'));
    sock.on('data', (c) => { buf += c; });
    sock.on('end', () => {
      try { resolve(JSON.parse(buf)); } catch (err) { reject(err); }
    });
    sock.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') resolve(null);
      else reject(err);
    });
  });
}
