import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTest, type TestOptions } from '../../src/cli/project-commands.js';
import { RehearsalClient } from '../../src/client/index.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';
import { injectFetch } from '../client/inject-fetch.js';
import { createTestContext, type TestContext } from '../harness.js';
import { captureIo } from './capture.js';
import { find, parseXml } from './xml.js';

// Every flag of `rehearsal test` (workflow §2) overrides rehearsal.yaml, and the gate is `rehearsal run`'s
// (trust §6.7, with the regression as step 3). `--embedded` itself is driven in project-test.test.ts.

const URL = 'http://rehearsal.test';
let t: TestContext;
let agent: FakeOpenAiServer;
let slow: FakeOpenAiServer;
let dir: string;
let good = true;

const write = (name: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
  fs.writeFileSync(path.join(dir, name), text);
};
const YAML = 'agent: desk\nsuite: Checked\nmax_turns: 2\nmin_pass_rate: 50\n';

async function test(opts: Partial<TestOptions>) {
  const io = captureIo({ fetch: injectFetch(t.app) });
  const code = await runTest({ dir, url: URL, apiKey: t.key, pollInterval: '0.05', ...opts }, io);
  return { code, ...io, json: opts.json && io.stdout.trim().startsWith('{') ? JSON.parse(io.stdout) : null };
}

beforeAll(async () => {
  agent = await startFakeOpenAi({ reply: () => (good ? 'You are booked.' : 'Sorry, no.') });
  slow = await startFakeOpenAi({ reply: () => 'Let me check...', latencyMs: 5000 });
  // no judge model: a criterion without a check cannot be decided, so its scenario run is not covered
  t = await createTestContext({ engine: { pollIntervalMs: 50 } });
  const client = new RehearsalClient({ baseUrl: URL, apiKey: t.key, fetch: injectFetch(t.app) });
  await client.agents.create({ provider: 'provider_4', name: 'desk', config: { base_url: agent.baseUrl, model: 'desk', api_key: 'sk-test' } });
  await client.agents.create({ provider: 'provider_4', name: 'slow desk', config: { base_url: slow.baseUrl, model: 'desk', api_key: 'sk-test', timeout_ms: 30_000 } });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-flags-'));
  const checked = (name: string) => `name: ${name}\nscript:\n  - ${name}, book me a table.\n  - Thanks.\ncriteria:\n  - criterion: Books the table\n    check: { type: contains, value: booked }\n`;
  write('rehearsal.yaml', YAML);
  write('scenarios/alpha.yaml', checked('Alpha'));
  write('scenarios/beta.yaml', checked('Beta'));
  write('scenarios/judged.yaml', 'name: Judged\nscript:\n  - Hello there.\ncriteria:\n  - criterion: Sounds friendly\n');
  write('suites/checked.yaml', 'name: Checked\nscenarios: [alpha, beta]\n');
  write('suites/all.yaml', 'name: All\nscenarios: [alpha, beta, judged]\n');
});
afterAll(async () => {
  await t?.close();
  await agent?.close();
  await slow?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('rehearsal test flags', () => {
  it('takes rehearsal.yaml as defaults (--dir names the folder)', async () => {
    const r = await test({ json: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ status: 'completed', total_scenarios: 2, max_turns: 2, repeats: 1, test_mode: 'demo', baseline_run_id: null });
    expect(r.json.gate).toMatchObject({ min_pass_rate: 50, min_coverage: 90, reason: 'met', exit_code: 0, fail_on_regression: false });
    expect(r.json.results.map((x: { scenario_name: string }) => x.scenario_name).sort()).toEqual(['Alpha', 'Beta']);
  });

  it('--suite, --max-turns, --repeats, --max-scenarios, --test-mode, --min-pass-rate override it', async () => {
    const r = await test({ json: true, suite: 'All', maxTurns: '1', repeats: '2', maxScenarios: '2', testMode: 'full', minPassRate: '0', minCoverage: '0' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ total_scenarios: 4, max_turns: 1, repeats: 2, test_mode: 'full', scenario_count: 2 });
    expect(r.json.gate).toMatchObject({ min_pass_rate: 0, min_coverage: 0 });
    const bad = await test({ testMode: 'fast' });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/--test-mode must be demo or full/);
  });

  it('--min-coverage (and min_coverage in rehearsal.yaml) gate as rehearsal run: exit 2 below it, 0 when lowered', async () => {
    // All: the judged scenario cannot be decided without a judge model, so 2 of 3 are covered (66.67%)
    const below = await test({ json: true, suite: 'All' });
    expect(below.code, below.stderr).toBe(2);
    expect(below.json.gate).toMatchObject({ reason: 'below_min_coverage', coverage: 66.67, min_coverage: 90, exit_code: 2 });
    expect(below.stderr).toMatch(/FAILED: coverage 66\.67% is below the minimum of 90%/);
    const lowered = await test({ json: true, suite: 'All', minCoverage: '60' });
    expect(lowered.code, lowered.stderr).toBe(0);
    write('rehearsal.yaml', `${YAML}min_coverage: 60\n`);
    try {
      const fromFile = await test({ json: true, suite: 'All' });
      expect(fromFile.code, fromFile.stderr).toBe(0);
      expect(fromFile.json.gate.min_coverage).toBe(60);
      const flagWins = await test({ json: true, suite: 'All', minCoverage: '70' });
      expect(flagWins.code).toBe(2);
      expect(flagWins.json.gate.min_coverage).toBe(70);
    } finally { write('rehearsal.yaml', YAML); }
    expect((await test({ minCoverage: '101' })).code).toBe(3);
  });

  it('--baseline and --fail-on-regression (or fail_on_regression: true) exit 1 with gate.reason regressed', async () => {
    good = true;
    const base = await test({ json: true, repeats: '4' });
    expect(base.code, base.stderr).toBe(0);
    good = false;
    try {
      // without --fail-on-regression the pass-rate rule decides (0% < 50%), not the comparison
      const noFlag = await test({ json: true, repeats: '4', baseline: base.json.id, minPassRate: '0' });
      expect(noFlag.code, noFlag.stderr).toBe(0);
      expect(noFlag.json).toMatchObject({ baseline_run_id: base.json.id, comparison: { verdict: 'regressed' } });

      const junit = path.join(dir, 'out', 'junit.xml');
      const summary = path.join(dir, 'out', 'regressed.md');
      const flagged = await test({ json: true, repeats: '4', baseline: base.json.id, failOnRegression: true, minPassRate: '0', junit, summary });
      expect(flagged.code, flagged.stderr).toBe(1);
      expect(flagged.json.gate).toMatchObject({ reason: 'regressed', exit_code: 1, fail_on_regression: true });
      expect(flagged.stderr).toMatch(/FAILED: the run regressed against its baseline: (Alpha, Beta|Beta, Alpha)/);
      const cases = find(parseXml(fs.readFileSync(junit, 'utf8')), 'testcase');
      expect(cases.filter((c) => c.attrs.name.endsWith('(regression)')).map((c) => c.attrs.name).sort()).toEqual(['Alpha (regression)', 'Beta (regression)']);
      const md = fs.readFileSync(summary, 'utf8');
      expect(md).toContain('**FAILED: the run regressed against its baseline:');
      expect(md).toMatch(new RegExp(`^Compared with baseline ${base.json.id}: REGRESSED \\(pass rate 100% → 0%, -100\\)$`, 'm'));
      expect(md).toMatch(/^- REGRESSED Alpha: 4\/4 → 0\/4 passed, p = 0\.\d+ \((not )?significant/m);
      expect(md).toContain('| Alpha | FAIL (0/4 passed) | Books the table |');

      write('rehearsal.yaml', `${YAML}baseline: ${base.json.id}\nfail_on_regression: true\nrepeats: 4\nmin_pass_rate: 0\n`.replace('min_pass_rate: 50\n', ''));
      const fromFile = await test({ json: true });
      expect(fromFile.code, fromFile.stderr).toBe(1);
      expect(fromFile.json.gate.reason).toBe('regressed');
      // a canceled or timed-out run is step 2: exit 2 even when it would have regressed
      const timedOut = await test({ json: true, agent: 'slow desk', timeout: '0.5' });
      expect(timedOut.code, timedOut.stderr).toBe(2);
    } finally {
      good = true;
      write('rehearsal.yaml', YAML);
    }
  });

  it('--agent overrides the file\'s agent; --timeout cancels the run and exits 2', async () => {
    const r = await test({ json: true, agent: 'slow desk', timeout: '0.5', maxTurns: '1' });
    expect(r.code, r.stderr).toBe(2);
    expect(r.json).toMatchObject({ status: 'canceled' });
    expect(r.json.gate).toMatchObject({ reason: 'timed_out', exit_code: 2 });
    expect(r.stderr).toMatch(/timed out after 0\.5 s; canceling it/);
    const unknown = await test({ agent: 'nobody' });
    expect(unknown.code).toBe(3);
  });

  it('--junit and --summary write their files; without --json the report is printed as rehearsal run prints it', async () => {
    const junit = path.join(dir, 'out', 'flags.xml');
    const summary = path.join(dir, 'out', 'flags.md');
    const r = await test({ junit, summary });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Alpha/);
    expect(r.stdout).toMatch(/PASSED: strict pass rate 100% meets the minimum of 50% with coverage 100%/);
    expect(find(parseXml(fs.readFileSync(junit, 'utf8')), 'testcase').map((c) => c.attrs.name).sort()).toEqual(['Alpha', 'Beta']);
    const md = fs.readFileSync(summary, 'utf8');
    expect(md).toMatch(/Pass rate \*\*100%\*\* \(95% interval [\d.]+%–100%\)/);
    expect(md).toMatch(/\[Open TR-\d+ on the dashboard\]\(http:\/\/rehearsal\.test\/runs\/[0-9a-f-]{36}\)/);
  });

  it('--dry-run prints the plan with the flags applied and creates no run (--json: the plan alone)', async () => {
    const before = (await t.call('GET', '/api/v1/runs')).body.total;
    const r = await test({ dryRun: true, json: true, suite: 'All', repeats: '3', maxTurns: '4' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ dry_run: true, scenario_count: 3, repeats: 3, conversations: 9, max_total_turns: 36 });
    expect(r.json.scenarios.map((s: { slug: string }) => s.slug).sort()).toEqual(['alpha', 'beta', 'judged']);
    const text = await test({ dryRun: true });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/2 scenario/);
    // the plan is validated as the run would be: an unknown baseline is refused the same way
    const badBaseline = await test({ dryRun: true, baseline: '00000000-0000-7000-8000-000000000000' });
    expect(badBaseline.code).toBe(3);
    expect(badBaseline.stderr).toMatch(/RUN_NOT_FOUND|not found/i);
    expect((await t.call('GET', '/api/v1/runs')).body.total).toBe(before);
  });
});
