import { afterAll, describe, expect, it } from 'vitest';
import { createPgDatabase, ensureBuilt, startCli, type Proc } from './processes.js';

/**
 * A fresh scaled deployment starts all its processes at once. The schema set-up (our migrations and
 * pg-boss's own installation and queues) must take turns: unserialized, pg-boss's CREATE SCHEMA and
 * create_queue failed with duplicate-key errors and deadlocks, and processes exited at start.
 */
describe('API and worker processes started together on a fresh database', () => {
  let db: { url: string; drop(): Promise<void> };
  const procs: Proc[] = [];
  afterAll(async () => {
    for (const p of procs) await p.kill('SIGKILL');
    await db?.drop();
  });

  it('all come up', async () => {
    ensureBuilt();
    db = await createPgDatabase('rehearsal_startup');
    const env = { DATABASE_URL: db.url, REHEARSAL_SECRET_KEY: 'startup-test-secret-0123456789abcdefghij', PORT: '0' };
    procs.push(startCli(['serve', '--no-worker'], env), startCli(['serve', '--no-worker'], env), startCli(['worker'], env), startCli(['worker'], env));
    await Promise.all([
      procs[0].waitFor(/listening on/, 45_000), procs[1].waitFor(/listening on/, 45_000),
      procs[2].waitFor(/Worker: running/, 45_000), procs[3].waitFor(/Worker: running/, 45_000),
    ]);
    for (const p of procs) expect(p.child.exitCode).toBeNull();
  }, 60_000);
});
