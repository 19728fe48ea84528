import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createPgDatabase } from '../cluster/processes.js';

/**
 * The PostgreSQL server the chaos suite restarts. By default a private server (initdb into a temp dir,
 * its own port) so that restarting it cannot break other test runs sharing the machine's cluster.
 * `CHAOS_PG=shared` uses the machine's cluster instead and restarts it with pg_ctlcluster, as an
 * operator would; only do that when nothing else is using it.
 */
export interface ChaosPostgres {
  url: string;
  describe: string;
  restart(): Promise<void>;
  close(): Promise<void>;
}

const quiet = { stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'] };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function waitReady(host: string, port: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      execFileSync('pg_isready', ['-h', host, '-p', String(port), '-q'], quiet);
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`PostgreSQL on ${host}:${port} not ready after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

function binDir(): string {
  const versions = fs.readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error('no PostgreSQL installation under /usr/lib/postgresql');
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

/** Runs a PostgreSQL binary as the postgres user when we are root (initdb and postgres refuse root). */
function asPostgres(bin: string, args: string[]) {
  const asRoot = process.getuid?.() === 0;
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  execFileSync(cmd, argv, quiet);
}

async function privateServer(): Promise<ChaosPostgres> {
  const bin = binDir();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-chaos-pg-'));
  const data = path.join(root, 'data');
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', root]);
  asPostgres(`${bin}/initdb`, ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  // fsync off: durability across an OS crash is not what is tested here, and the machine is shared
  const opts = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${root} -c fsync=off -c max_connections=200`;
  const ctl = (...args: string[]) => asPostgres(`${bin}/pg_ctl`, ['-D', data, '-l', path.join(root, 'server.log'), ...args]);
  ctl('-o', opts, '-w', 'start');
  await waitReady('127.0.0.1', port);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    describe: `private PostgreSQL (${path.basename(path.dirname(bin))}) on 127.0.0.1:${port}`,
    async restart() {
      // fast: active sessions are terminated, as with `pg_ctlcluster … restart`
      ctl('-m', 'fast', '-w', 'restart');
      await waitReady('127.0.0.1', port);
    },
    async close() {
      try { ctl('-m', 'immediate', '-w', 'stop'); } catch { /* already stopped */ }
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

async function sharedServer(): Promise<ChaosPostgres> {
  const version = fs.readdirSync('/etc/postgresql')[0];
  const db = await createPgDatabase('rehearsal_chaos');
  const u = new URL(db.url);
  return {
    url: db.url,
    describe: `the machine's PostgreSQL ${version} cluster (database ${u.pathname.slice(1)})`,
    async restart() {
      execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'restart'], quiet);
      await waitReady(u.hostname, Number(u.port || 5432));
    },
    close: () => db.drop(),
  };
}

export function startChaosPostgres(): Promise<ChaosPostgres> {
  return process.env.CHAOS_PG === 'shared' ? sharedServer() : privateServer();
}
