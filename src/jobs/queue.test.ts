import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client.js';
import { freshDatabase } from '../../test/harness.js';
import { JOBS } from './catalog.js';
import { createJobQueue, type JobQueue } from './queue.js';

describe('job queue: many jobs in one statement', () => {
  let db: Database;
  let queue: JobQueue;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await freshDatabase());
    await db.migrate();
    queue = createJobQueue(db, { supervise: false, onError: () => {} });
    await queue.start();
  });
  afterAll(async () => { await queue.stop(); await db.close(); await drop(); });

  const payload = (i: number) => ({ scenario_run_id: `0190f0f0-0000-7000-8000-00000000000${i}`, run_id: '0190f0f0-0000-7000-8000-00000000000a', org_id: '0190f0f0-0000-7000-8000-00000000000b' });

  it('enqueues every payload with the catalog\'s retry budget and expiry, in the caller\'s transaction', async () => {
    await db.transaction(async (tx) => {
      const before = (await tx.executeSql('select count(*)::int as n from pgboss.job where name = $1', [JOBS.scenarioRun.name])).rows[0].n;
      await queue.sendMany(tx, JOBS.scenarioRun, [payload(1), payload(2), payload(3)]);
      await queue.sendMany(tx, JOBS.scenarioRun, []); // nothing to do, no statement
      const rows = (await tx.executeSql('select data, retry_limit, extract(epoch from expire_in)::int as expire_s from pgboss.job where name = $1 order by data->>\'scenario_run_id\'', [JOBS.scenarioRun.name])).rows;
      expect(rows.length - before).toBe(3);
      expect(rows.map((r) => r.data.scenario_run_id)).toEqual([1, 2, 3].map((i) => payload(i).scenario_run_id));
      expect(rows.every((r) => r.retry_limit === JOBS.scenarioRun.retryLimit && r.expire_s === JOBS.scenarioRun.expireInSeconds)).toBe(true);
    });
    const fetched = await queue.fetch(JOBS.scenarioRun, 10);
    expect(fetched.map((j) => ('data' in j ? j.data.scenario_run_id : j.invalid)).sort()).toEqual([1, 2, 3].map((i) => payload(i).scenario_run_id));
  });

  it('a rolled-back transaction leaves no job behind', async () => {
    await db.transaction(async (tx) => {
      await queue.sendMany(tx, JOBS.scenarioRun, [payload(4), payload(5)]);
      throw new Error('roll back');
    }).catch(() => undefined);
    expect(await queue.fetch(JOBS.scenarioRun, 10)).toEqual([]);
  });
});
