import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTest, runValidate } from '../../src/cli/project-commands.js';
import { SAMPLE_AGENT_MODEL, startSampleAgent, type SampleAgent } from '../../src/demo/sample-agent.js';
import { startFakeLlm, type FakeLlm } from '../fakes/fake-llm.js';
import { captureIo } from './capture.js';

// End to end: a folder of files → `rehearsal test --embedded` against the sample agent and a fake LLM judge.

let agent: SampleAgent;
let llm: FakeLlm;
let dir: string;
let env: NodeJS.ProcessEnv;

function write(files: Record<string, string>) {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
}

beforeAll(async () => {
  agent = await startSampleAgent();
  llm = await startFakeLlm();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-project-'));
  env = { AGENT_URL: agent.baseUrl, AGENT_KEY: agent.apiKey, REHEARSAL_LLM_BASE_URL: llm.baseUrl, REHEARSAL_JUDGE_MODEL: llm.judgeModel, REHEARSAL_LLM_API_KEY: llm.apiKey ?? undefined };
  write({
    'rehearsal.yaml': `agent:\n  provider: provider_4\n  name: Sample desk\n  config:\n    base_url: \${AGENT_URL}\n    model: ${SAMPLE_AGENT_MODEL}\n    api_key: \${AGENT_KEY}\nsuite: Smoke\nmax_turns: 3\n`,
    'scenarios/greets.yaml': 'name: Greets a caller\nscript:\n  - Hello\n  - Are you open?\n  - Thanks\ncriteria:\n  - criterion: Answers politely\n  - criterion: Says something\n    check: { type: regex, value: "." }\n',
    'scenarios/impossible.yaml': 'name: Says the magic word\nscript:\n  - Hello\ncriteria:\n  - criterion: Says the magic word\n    required: true\n    check: { type: contains, value: "xyzzy-plugh" }\n',
    'suites/smoke.yaml': 'name: Smoke\nscenarios:\n  - greets\n  - impossible\n',
  });
});
afterAll(async () => {
  await agent?.close();
  await llm?.server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('rehearsal test --embedded', () => {
  it('validates, syncs, runs, writes JUnit and Markdown, and gates on the pass rate', async () => {
    const junit = path.join(dir, 'out', 'junit.xml');
    const summary = path.join(dir, 'out', 'summary.md');
    const io = captureIo({ env });
    const code = await runTest({ dir, embedded: true, junit, summary, minPassRate: '50', pollInterval: '0.2' }, io);
    expect(io.stderr).toMatch(/^agent: 1 created, 0 updated, 0 unchanged$/m);
    expect(io.stderr).toMatch(/^templates: 2 created, 0 updated, 0 unchanged$/m);
    expect(io.stderr).toMatch(/^suites: 1 created, 0 updated, 0 unchanged$/m);
    expect(code, io.stderr + io.stdout).toBe(0);
    expect(io.stdout).toMatch(/PASSED: strict pass rate 50% meets the minimum of 50% with coverage 100%/);
    const xml = fs.readFileSync(junit, 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(2);
    expect(xml).toContain('name="Says the magic word"');
    const md = fs.readFileSync(summary, 'utf8');
    expect(md).toMatch(/Pass rate \*\*50%\*\* \(95% interval [\d.]+%–[\d.]+%\)/);
    expect(md).toContain('| Says the magic word | FAIL | Says the magic word |');
    expect(md).toMatch(/\[Open TR-1 on the dashboard\]\(http:\/\/127\.0\.0\.1:\d+\/runs\/[0-9a-f-]{36}\)/);
  }, 120_000);

  it('exits 1 below --min-pass-rate, 0 with the plan on --dry-run --json, 3 on invalid files, 2 when the service is unreachable', async () => {
    const below = captureIo({ env });
    expect(await runTest({ dir, embedded: true, minPassRate: '100', pollInterval: '0.2' }, below), below.stderr).toBe(1);

    const plan = captureIo({ env });
    expect(await runTest({ dir, embedded: true, dryRun: true, json: true }, plan), plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout)).toMatchObject({ dry_run: true, scenario_count: 2, conversations: 2, max_total_turns: 6 });

    const down = captureIo({ env });
    expect(await runTest({ dir, url: 'http://127.0.0.1:9', apiKey: `sk_live_${'a'.repeat(40)}` }, down)).toBe(2);

    write({ 'scenarios/broken.yaml': 'name: Broken\ncriteria:\n  - criterion: x\n    max_points: many\n' });
    const bad = captureIo({ env });
    expect(await runTest({ dir, embedded: true }, bad)).toBe(3);
    expect(bad.stderr).toMatch(/scenarios\/broken\.yaml:4: criteria\[0\]\.max_points: must be number/);
    const v = captureIo({ env });
    expect(await runValidate({ dir }, v)).toBe(3);
    fs.rmSync(path.join(dir, 'scenarios/broken.yaml'));
    expect(await runValidate({ dir }, captureIo({ env }))).toBe(0);
  }, 180_000);
});
