import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGate, type GateOptions } from '../../src/cli/gate.js';
import { RehearsalClient } from '../../src/client/index.js';
import { startFakeOpenAi, type FakeOpenAiServer, type WireMessage } from '../fakes/openai-agent.js';
import { startFakeLlm, type FakeLlm } from '../fakes/fake-llm.js';
import { injectFetch } from '../client/inject-fetch.js';
import { createTestContext, type TestContext } from '../harness.js';
import { captureIo } from './capture.js';
import { find, parseXml } from './xml.js';

// The gate counts what the agent caused and refuses thin evidence, through the whole service: 19 agent
// timeouts and 1 pass is the agent's failure (exit 1), 19 broken judgments and 1 pass is no evidence (exit 2).

const URL = 'http://rehearsal.test';
const N = 20;
const ANSWER = 'Your code word is pineapple.';
const firstUser = (messages: WireMessage[]) => messages.find((m) => m.role === 'user')?.content ?? '';

describe('rehearsal run when most scenario runs error', () => {
  let t: TestContext;
  let flaky: FakeOpenAiServer;
  let steady: FakeOpenAiServer;
  let llm: FakeLlm;
  let dir = "";
  const gate = (opts: Partial<GateOptions>) => {
    const c = captureIo({ fetch: injectFetch(t.app) });
    return runGate({ url: URL, apiKey: t.key, pollInterval: '0.05', maxTurns: '1', ...opts }, c).then((code) => ({ code, ...c }));
  };

  beforeAll(async () => {
    [flaky, steady, llm] = await Promise.all([
      // answers the first scenario only; on the others it outlasts timeout_ms
      startFakeOpenAi({ reply: async (messages) => {
        if (firstUser(messages) === 'Timeout 0') return ANSWER;
        await new Promise((r) => setTimeout(r, 2500));
        return ANSWER;
      } }),
      startFakeOpenAi({ reply: () => ANSWER }),
      startFakeLlm(),
    ]);
    // the judge gives a verdict for the first scenario only, and garbage for the others
    llm.setJudge((v) => (v.transcript[0]?.text === 'Judge 0'
      ? { results: v.criteria.map((c) => ({ id: c.id, rationale: 'polite', evidence: [], decision: 'MET' })) }
      : 'I would rather not say.'));
    t = await createTestContext({
      engine: { pollIntervalMs: 50 },
      // no tester model: each scenario's script is its caller, so the agent can tell them apart
      env: {
        REHEARSAL_LLM_BASE_URL: llm.baseUrl, REHEARSAL_LLM_API_KEY: llm.apiKey ?? '', REHEARSAL_JUDGE_MODEL: llm.judgeModel, REHEARSAL_FAULT_RETRIES: '0',
      },
    });
    const client = new RehearsalClient({ baseUrl: URL, apiKey: t.key, fetch: injectFetch(t.app) });
    await client.agents.create({ provider: 'provider_4', name: 'Flaky', config: { base_url: flaky.baseUrl, model: 'm', api_key: 'sk-test', timeout_ms: 1000 } });
    await client.agents.create({ provider: 'provider_4', name: 'Steady', config: { base_url: steady.baseUrl, model: 'm', api_key: 'sk-test' } });
    const suite = async (name: string, criterion: Record<string, unknown>) => {
      const ids: string[] = [];
      for (let i = 0; i < N; i++) {
        const s = await t.call('POST', '/api/v1/scenarios', { body: { name: `${name} ${i}`, script: [`${name} ${i}`], criteria: [criterion] } });
        expect(s.status, JSON.stringify(s.body)).toBe(201);
        ids.push(s.body.id);
      }
      await client.testSuites.create({ name, scenario_ids: ids });
    };
    await suite('Timeout', { criterion: 'Gives the code word', required: true, check: { type: 'contains', value: 'pineapple' } });
    await suite('Judge', { criterion: 'Is polite', check: null });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-gate-faults-'));
  }, 30_000);
  afterAll(async () => {
    await t.close();
    await Promise.all([flaky.close(), steady.close(), llm.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('19 agent timeouts and 1 pass: exit 1, the timeouts are JUnit failures of type agent', async () => {
    const junit = path.join(dir, 'timeouts.xml');
    const r = await gate({ agent: 'Flaky', suite: 'Timeout', minPassRate: '80', json: true, junit });
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ total_scenarios: N, passed_count: 1, agent_error_count: 19, gate: { reason: 'below_min_pass_rate', strict_pass_rate: 5, coverage: 100, passed: false, exit_code: 1 } });
    const errored = out.results.filter((x: { status: string }) => x.status === 'error');
    expect(errored).toHaveLength(19);
    expect(errored.every((x: { fault: string; error_message: string }) => x.fault === 'agent' && /^timeout: /.test(x.error_message))).toBe(true);
    const xml = parseXml(fs.readFileSync(junit, 'utf8'));
    expect(xml.attrs).toMatchObject({ tests: String(N), failures: '19', errors: '0' });
    const failures = find(xml, 'failure');
    expect(failures).toHaveLength(19);
    expect(failures.every((f) => f.attrs.type === 'agent')).toBe(true);
  }, 60_000);

  it('19 judge errors and 1 pass: exit 2 for coverage, the message counts the uncovered runs by fault', async () => {
    const r = await gate({ agent: 'Steady', suite: 'Judge', minPassRate: '80', json: true });
    expect(r.code, r.stderr).toBe(2);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'completed', passed_count: 1, agent_error_count: 0, gate: { reason: 'below_min_coverage', strict_pass_rate: 100, coverage: 5, exit_code: 2 } });
    expect(r.stderr).toMatch(/FAILED: coverage 5% is below the minimum of 90%: 19 of 20 scenario runs not covered \(judge 19\)/);
  }, 60_000);

  it('a clean run exits 0', async () => {
    const r = await gate({ agent: 'Steady', suite: 'Timeout', minPassRate: '80' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/PASSED: strict pass rate 100% meets the minimum of 80% with coverage 100%/);
  }, 60_000);
});
