import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TAKEOVER_MESSAGE } from '../../src/modules/runs/run-store/claims.js';
import { createTestContext, waitForRun, type TestContext } from '../harness.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';

/**
 * The database drops out (a PostgreSQL restart) just as a conversation's result is written. The worker
 * lives on, so nothing kills its lease: it must stop renewing the lease of a conversation it no longer
 * works on, or the scenario run stays held by it forever and the run never ends. Found by the chaos suite.
 */
describe('a result write that fails while the worker lives on', () => {
  let t: TestContext;
  let agent: FakeOpenAiServer;
  let failures = 0;

  beforeAll(async () => {
    agent = await startFakeOpenAi({ apiKey: null, reply: () => 'You are booked for Tuesday.' });
    t = await createTestContext({ env: { REHEARSAL_WORKER_LEASE_SECONDS: '2' }, engine: { pollIntervalMs: 50 } });
    const db = t.deps.db;
    const transaction = db.transaction.bind(db);
    // the first write of a result fails as a dropped connection would; everything else goes through
    db.transaction = ((fn: any) => {
      if (failures === 0 && new Error().stack?.includes('finishScenarioRuns')) {
        failures++;
        return Promise.reject(new Error('Connection terminated unexpectedly'));
      }
      return transaction(fn);
    }) as typeof db.transaction;
  });
  afterAll(async () => { await t.close(); await agent.close(); });

  it('the lease runs out, the conversation is taken over and counted once', async () => {
    const a = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Desk', config: { base_url: agent.baseUrl, model: 'm' } } });
    const s = await t.call('POST', '/api/v1/scenarios', { body: { name: 'Book', script: ['Hello', 'Tuesday'], criteria: [{ criterion: 'Books', check: { type: 'contains', value: 'booked' } }] } });
    const suite = await t.call('POST', '/api/v1/test-suites', { body: { name: 'One', scenario_ids: [s.body.id] } });
    const run = await t.call('POST', '/api/v1/runs', { body: { agent_id: a.body.id, test_suite_id: suite.body.id, max_turns: 2 } });
    const final = await waitForRun(t, run.body.id, 20_000);
    expect(failures).toBe(1);
    expect(final).toMatchObject({ status: 'completed', passed_count: 1, failed_count: 0, error_count: 0 });
    const [item] = (await t.call('GET', `/api/v1/runs/${run.body.id}/results`)).body.results;
    const sr = (await t.call('GET', `/api/v1/scenario-runs/${item.id}`)).body;
    expect(sr.attempts).toBe(2);
    // the takeover is an attempt that did not count, the worker's (our own) fault
    expect(sr.attempt_history).toEqual([{ attempt: 1, fault: 'internal', error_message: TAKEOVER_MESSAGE, started_at: expect.any(String), ended_at: expect.any(String) }]);
    expect(sr).toMatchObject({ fault: null, end_reason: 'tester_ended', agent_turns: 2 });
    expect((await t.call('GET', `/api/v1/runs/${run.body.id}`)).body).toMatchObject({ retried_count: 1, faults: { internal: 0 } });
    expect(sr.transcript.map((e: any) => e.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  }, 30_000);
});
