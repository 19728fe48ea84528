import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGate, type GateOptions } from '../../src/cli/gate.js';
import { RehearsalClient } from '../../src/client/index.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';
import { injectFetch } from '../client/inject-fetch.js';
import { createTestContext, type TestContext } from '../harness.js';
import { captureIo } from './capture.js';
import { find, parseXml } from './xml.js';

const URL = 'http://rehearsal.test';

describe('rehearsal run --repeats --baseline --fail-on-regression', () => {
  let t: TestContext;
  let agent: FakeOpenAiServer;
  let dir: string;
  // Steady always books; Alternating books every other call (2 of 4: flaky); Toggled books while `good`
  let good = true;
  const calls = new Map<string, number>();
  const io = () => captureIo({ fetch: injectFetch(t.app) });
  const gate = (opts: Partial<GateOptions>) => {
    const c = io();
    return runGate({ url: URL, apiKey: t.key, pollInterval: '0.05', agent: 'desk', suite: 'bookings', minCoverage: '0', ...opts }, c).then((code) => ({ code, ...c }));
  };

  beforeAll(async () => {
    agent = await startFakeOpenAi({ reply: (msgs) => {
      const first = msgs.find((m) => m.role === 'user')?.content ?? '';
      const n = (calls.get(first) ?? 0) + 1;
      calls.set(first, n);
      const ok = first.startsWith('Steady') || (first.startsWith('Alternating') && n % 2 === 1) || (first.startsWith('Toggled') && good);
      return ok ? 'You are booked.' : 'Sorry, no.';
    } });
    t = await createTestContext({ engine: { pollIntervalMs: 50 } });
    const client = new RehearsalClient({ baseUrl: URL, apiKey: t.key, fetch: injectFetch(t.app) });
    await client.agents.create({ provider: 'provider_4', name: 'desk', config: { base_url: agent.baseUrl, model: 'desk', api_key: 'sk-test' } });
    const ids: string[] = [];
    for (const name of ['Steady', 'Alternating', 'Toggled']) {
      ids.push((await client.scenarios.create({ name, script: [`${name}: book me a table`], criteria: [{ criterion: 'Books the table', check: { type: 'contains', value: 'booked' } }] })).id);
    }
    await client.testSuites.create({ name: 'bookings', scenario_ids: ids });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-regression-'));
  });
  afterAll(async () => {
    await t.close();
    await agent.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('prints attempts as dots with flaky labels and the interval, then gates a significant regression with exit 1', async () => {
    const first = await gate({ repeats: '4' });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/Steady\s+●●●●\s+pass\s+100%/);
    expect(first.stdout).toMatch(/Alternating\s+(●○●○|○●○●|●●○○|○○●●|●○○●|○●●○)\s+flaky\s+50%/);
    expect(first.stdout).toMatch(/95% interval [\d.]+–[\d.]+% \(repetitions of a scenario counted as correlated\); 2 of 3 scenarios passed every attempt, 1 flaky/);

    good = false;
    const junit = path.join(dir, 'rehearsal.xml');
    const second = await gate({ repeats: '4', baseline: 'previous', failOnRegression: true, junit });
    expect(second.code, second.stdout + second.stderr).toBe(1);
    expect(second.stdout).toMatch(/Toggled\s+○○○○\s+broken\s+0%/);
    expect(second.stdout).toMatch(/: REGRESSED \(pass rate 83.33% → 50%, -33.33\)/);
    // 4/4 → 0/4: one table in C(8,4) = 70 is as extreme; the only p-value, so Holm leaves it
    expect(second.stdout).toMatch(/REGRESSED Toggled: 4\/4 → 0\/4 passed, p = 0\.014 \(significant after Holm\)/);
    expect(second.stdout).toMatch(/FAILED: the run regressed against its baseline: Toggled/);
    const xml = parseXml(fs.readFileSync(junit, 'utf8'));
    const cases = find(xml, 'testcase');
    expect(cases).toHaveLength(13);
    const marked = cases.find((c) => c.attrs.name === 'Toggled (regression)')!;
    const failure = find(marked, 'failure')[0];
    expect(failure.attrs.type).toBe('regression');
    expect(failure.attrs.message).toMatch(/p_value 0\.0142857142857\d*, significant after Holm/);

    const json = await gate({ repeats: '4', baseline: 'previous', failOnRegression: true, json: true });
    // against the degraded run nothing got worse: the flaky scenario alone never makes a regression
    expect(json.code, json.stderr).toBe(0);
    const out = JSON.parse(json.stdout);
    expect(out.gate).toMatchObject({ reason: 'met', exit_code: 0, fail_on_regression: true });
    expect(out.comparison).toMatchObject({ verdict: 'inconclusive', counts: { flaky: 1, unchanged: 2, regressed: 0 } });
    expect(out.scenarios.map((s: any) => s.verdict)).toEqual(['pass', 'flaky', 'fail']);
  });

  it('refuses bad flags with exit 3', async () => {
    expect((await gate({ repeats: '11' })).code).toBe(3);
    expect((await gate({ failOnRegression: true })).code).toBe(3);
  });
});
