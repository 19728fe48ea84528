import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClientCommands } from '../../src/cli/commands.js';
import { runGate, type GateOptions } from '../../src/cli/gate.js';
import { RehearsalClient } from '../../src/client/index.js';
import { startDemoJudge, type DemoJudge } from '../../src/demo/demo-judge.js';
import { SAMPLE_AGENT_TOOL_ALIASES, startSampleAgent, type SampleAgent } from '../../src/demo/sample-agent.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';
import { injectFetch } from '../client/inject-fetch.js';
import { createTestContext, type TestContext } from '../harness.js';
import { captureIo } from './capture.js';
import { find, parseXml } from './xml.js';

const URL = 'http://rehearsal.test';

describe('rehearsal run (the CI gate) against a running service', () => {
  let t: TestContext;
  let agent: SampleAgent;
  let judge: DemoJudge;
  let hanging: FakeOpenAiServer;
  let client: RehearsalClient;
  let dir: string;
  const io = (extra: Parameters<typeof captureIo>[0] = {}) => captureIo({ fetch: injectFetch(t.app), ...extra });
  const gate = (opts: Partial<GateOptions>, c = io()) => runGate({ url: URL, apiKey: t.key, pollInterval: '0.05', ...opts }, c).then((code) => ({ code, ...c }));

  beforeAll(async () => {
    [agent, judge, hanging] = await Promise.all([startSampleAgent(), startDemoJudge(), startFakeOpenAi({ reply: () => 'One moment…', latencyMs: 20_000 })]);
    t = await createTestContext({
      engine: { pollIntervalMs: 50 },
      env: { REHEARSAL_LLM_BASE_URL: judge.baseUrl, REHEARSAL_LLM_API_KEY: judge.apiKey, REHEARSAL_JUDGE_MODEL: judge.model },
    });
    client = new RehearsalClient({ baseUrl: URL, apiKey: t.key, fetch: injectFetch(t.app) });
    await client.agents.create({ provider: 'provider_4', name: 'Ava', config: agent.config, tool_aliases: SAMPLE_AGENT_TOOL_ALIASES });
    await client.agents.create({ provider: 'provider_4', name: 'Wrong key', config: { ...agent.config, api_key: 'sk-wrong' } });
    await client.agents.create({ provider: 'provider_4', name: 'Hangs', config: { base_url: hanging.baseUrl, model: 'm', api_key: 'sk-test' } });
    const library = (await client.scenarios.list({ limit: 100 })).scenarios;
    const pick = (prefix: string) => library.find((s) => s.name.startsWith(prefix))!.id;
    await client.testSuites.create({ name: 'Mixed', scenario_ids: [pick('Greeting: first-time caller'), pick('Escalation: caller demands a manager'), pick('Hard caller: three requests')] });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-gate-'));
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([agent.close(), judge.close(), hanging.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('exit 0 when the pass rate is met; --json prints the run with its results; JUnit is well-formed', async () => {
    const junit = path.join(dir, 'ok', 'rehearsal.xml');
    const r = await gate({ agent: 'ava', mode: 'demo', maxScenarios: '3', maxTurns: '10', minPassRate: '80', json: true, junit });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'completed', total_scenarios: 3, passed_count: 3, pass_rate: 100, max_turns: 10, gate: { min_pass_rate: 80, min_coverage: 90, strict_pass_rate: 100, coverage: 100, passed: true, reason: 'met', exit_code: 0 } });
    expect(out.results).toHaveLength(3);
    expect(out.results[0]).toMatchObject({ status: 'passed', passed: true, score: 1, unmet_criteria: [] });
    expect(r.stderr).toMatch(/PASSED: strict pass rate 100% meets the minimum of 80% with coverage 100%/);
    const xml = parseXml(fs.readFileSync(junit, 'utf8'));
    expect(xml.name).toBe('testsuites');
    expect(xml.attrs).toMatchObject({ tests: '3', failures: '0', errors: '0' });
    const cases = find(xml, 'testcase');
    expect(cases.map((c) => c.attrs.name)).toEqual(out.results.map((x: { scenario_name: string }) => x.scenario_name));
    expect(cases.every((c) => c.children.length === 0)).toBe(true);
  });

  it('exit 1 below --min-pass-rate: the table names the first unmet criterion, JUnit failures carry every unmet one', async () => {
    const junit = path.join(dir, 'below.xml');
    const r = await gate({ agent: 'Ava', suite: 'mixed', maxTurns: '10', minPassRate: '50', junit });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/Greeting: first-time caller.*PASS\s+1\.00/);
    expect(r.stdout).toMatch(/Escalation: caller demands a manager.*FAIL\s+0\.40\s+Offers a transfer to a person/);
    expect(r.stdout).toMatch(/Hard caller: three requests.*FAIL\s+0\.60\s+Acknowledges all three requests/);
    expect(r.stdout).toMatch(/^Pass rate: 33\.33% \(1 passed, 2 failed, 0 errors of 3 scenarios/m);
    expect(r.stdout).toMatch(/FAILED: the agent's own outcomes put the strict pass rate below the minimum of 50%: 1 passed, 2 failed, 0 errors of the agent's own/);
    expect(r.stderr).toMatch(/TR-\d+ completed: 3\/3 done · 1 passed · 2 failed · 0 errors/);
    const xml = parseXml(fs.readFileSync(junit, 'utf8'));
    expect(xml.attrs).toMatchObject({ tests: '3', failures: '2', errors: '0' });
    const failures = find(xml, 'failure');
    expect(failures[0].attrs.message).toMatch(/^Offers a transfer to a person/);
    expect(failures[0].text).toMatch(/NOT_MET \(required\): Offers a transfer[\s\S]*NOT_MET: Hands the call to a human with the transfer tool/);
    const props = Object.fromEntries(find(xml, 'property').map((p) => [p.attrs.name, p.attrs.value]));
    expect(props).toMatchObject({ status: 'completed', pass_rate: '33.33', agent: 'Ava' });
  });

  it('exit 2 when the run fails; JUnit errors carry the error message', async () => {
    const junit = path.join(dir, 'failed.xml');
    const r = await gate({ agent: 'Wrong key', maxScenarios: '2', junit });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    // rejected credentials are the agent's configuration (fault agent): covered, and failures in JUnit
    expect(r.stdout).toMatch(/FAILED: run TR-\d+ ended failed \(provider: 401.*\); 0 of 2 scenario runs not covered/);
    const xml = parseXml(fs.readFileSync(junit, 'utf8'));
    expect(xml.attrs).toMatchObject({ tests: '2', failures: '2', errors: '0' });
    expect(find(xml, 'failure')[0].attrs).toMatchObject({ type: 'agent', message: expect.stringMatching(/^provider: 401/) });
  });

  it('exit 2 on --timeout: the run is canceled rather than left holding a slot', async () => {
    const r = await gate({ agent: 'Hangs', maxScenarios: '1', timeout: '0.5', json: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/timed out after 0\.5 s; canceling it/);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'canceled', gate: { passed: false, reason: 'timed_out', exit_code: 2 } });
    expect((await client.runs.get(out.id)).status).toBe('canceled');
  });

  it('exit 3 for usage, configuration and authentication problems', async () => {
    const cases: Array<[Partial<GateOptions>, RegExp]> = [
      [{ agent: undefined }, /--agent <id\|name> is required/],
      [{ agent: 'Ava', url: undefined }, /no service URL/],
      [{ agent: 'Ava', apiKey: 'sk_live_' + 'x'.repeat(40) }, /UNAUTHORIZED/],
      [{ agent: 'Nobody' }, /no agent named "Nobody"/],
      [{ agent: crypto.randomUUID() }, /agent .* not found/],
      [{ agent: 'Ava', suite: 'Nope' }, /no test suite named "Nope"/],
      [{ agent: 'Ava', minPassRate: '120' }, /--min-pass-rate must be a number from 0 to 100/],
      [{ agent: 'Ava', minCoverage: '-1' }, /--min-coverage must be a number from 0 to 100/],
      [{ agent: 'Ava', minCoverage: 'most' }, /--min-coverage must be a number from 0 to 100/],
      [{ agent: 'Ava', maxTurns: '0' }, /--max-turns must be an integer from 1 to 50/],
      [{ agent: 'Ava', mode: 'quick' }, /--mode must be demo or full/],
      [{ agent: 'Ava', timeout: 'soon' }, /--timeout must be a number of seconds/],
    ];
    for (const [opts, message] of cases) {
      const r = await gate(opts);
      expect(r.code, JSON.stringify(opts)).toBe(3);
      expect(r.stderr).toMatch(message);
    }
    const unreachable = await runGate({ agent: 'Ava', url: 'http://127.0.0.1:9', apiKey: t.key }, captureIo());
    expect(unreachable).toBe(3);
  });

  it('reads REHEARSAL_URL / REHEARSAL_API_KEY and parses its flags through the real command line', async () => {
    const c = io({ env: { REHEARSAL_URL: URL, REHEARSAL_API_KEY: t.key }, isTTY: true, columns: 100 });
    let code = -1;
    const program = new Command().exitOverride();
    registerClientCommands(program, c, (x) => { code = x; });
    await program.parseAsync(['run', '--agent', 'Ava', '--max-scenarios', '1', '--max-turns', '2', '--min-pass-rate', '0', '--poll-interval', '0.05', '--json'], { from: 'user' });
    expect(code, c.stderr).toBe(0);
    expect(JSON.parse(c.stdout)).toMatchObject({ max_turns: 2, total_scenarios: 1, status: 'completed', warnings: ['1 scenario will be cut off: their scripts have up to 7 lines; max_turns is 2'] });
    // said before the wait, not only in the final JSON
    expect(c.stderr.indexOf('warning: 1 scenario will be cut off')).toBeGreaterThan(-1);
    expect(c.stderr.indexOf('warning: 1 scenario will be cut off')).toBeLessThan(c.stderr.indexOf('1/1 done'));
    expect(c.stderr).toMatch(/\r\x1b\[2K\[█+\] 1\/1 done/); // the terminal progress bar
  });
});
