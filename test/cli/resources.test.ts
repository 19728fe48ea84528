import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClientCommands } from '../../src/cli/commands.js';
import { startSampleAgent, type SampleAgent } from '../../src/demo/sample-agent.js';
import { injectFetch } from '../client/inject-fetch.js';
import { createTestContext, type TestContext } from '../harness.js';
import { captureIo } from './capture.js';

describe('rehearsal agents / suites / runs', () => {
  let t: TestContext;
  let agent: SampleAgent;
  beforeAll(async () => {
    agent = await startSampleAgent();
    t = await createTestContext(); // no worker: runs stay pending until canceled
  });
  afterAll(async () => { await t.close(); await agent.close(); });

  /** Parses argv with the real command definitions; resolves with the exit code and the output. */
  async function cli(...argv: string[]) {
    const io = captureIo({ fetch: injectFetch(t.app), env: { REHEARSAL_URL: 'http://rehearsal.test', REHEARSAL_API_KEY: t.key } });
    let code = -1;
    const program = new Command().exitOverride();
    registerClientCommands(program, io, (c) => { code = c; });
    await program.parseAsync(argv, { from: 'user' });
    return { code, out: io.stdout, err: io.stderr, json: () => JSON.parse(io.stdout) };
  }

  it('agents create / list / validate', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-cli-')), 'config.json');
    fs.writeFileSync(file, JSON.stringify(agent.config));
    const created = await cli('agents', 'create', '--name', 'Ava', '--provider', 'provider_4', '--config', `@${file}`, '--json');
    expect(created.code, created.err).toBe(0);
    expect(created.json()).toMatchObject({ name: 'Ava', provider: 'provider_4', config_fields: expect.arrayContaining(['api_key', 'base_url']) });
    const broken = await cli('agents', 'create', '--name', 'Gone', '--provider', 'provider_4', '--config', '{"base_url":"http://127.0.0.1:9/v1","model":"m"}');
    expect(broken.out).toMatch(/^Created agent [0-9a-f-]{36} \(Gone, provider_4; config fields: base_url, model\)/);

    const list = await cli('agents', 'list', '--json');
    expect(list.json().map((a: { name: string }) => a.name).sort()).toEqual(['Ava', 'Gone']);
    expect((await cli('agents', 'list')).out).toMatch(/ID\s+PROVIDER\s+STATE\s+NAME\n[0-9a-f-]{36}\s+provider_4\s+active\s+(Gone|Ava)/);

    expect(await cli('agents', 'validate', 'ava', '--json')).toMatchObject({ code: 0 });
    expect((await cli('agents', 'validate', 'Ava')).out).toBe('valid: credentials accepted\n');
    const invalid = await cli('agents', 'validate', 'Gone');
    expect(invalid).toMatchObject({ code: 1 });
    expect(invalid.out).toMatch(/^INVALID: .*\(unreachable\)/);
    expect(await cli('agents', 'validate', 'Nobody')).toMatchObject({ code: 3, err: 'rehearsal agents validate: no agent named "Nobody"\n' });
    expect(await cli('agents', 'create', '--name', 'X', '--provider', 'provider_4', '--config', 'not json')).toMatchObject({ code: 3 });
    expect((await cli('agents', 'create', '--name', 'Ava', '--provider', 'provider_4', '--config', '{"base_url":"http://127.0.0.1:9/v1","model":"m"}')).err).toMatch(/ALREADY_EXISTS/);
  });

  it('suites list', async () => {
    const r = await cli('suites', 'list', '--json');
    expect(r.code).toBe(0);
    expect(r.json()).toEqual([expect.objectContaining({ name: 'Default', is_default: true, scenario_count: 51 })]);
    expect((await cli('suites', 'list')).out).toMatch(/ID\s+SCENARIOS\s+NAME\n[0-9a-f-]{36}\s+51\s+Default \(default\)/);
  });

  it('runs list / show / cancel', async () => {
    const agentId = (await cli('agents', 'list', '--json')).json().find((a: { name: string }) => a.name === 'Ava').id;
    const created = await t.call('POST', '/api/v1/runs', { body: { agent_id: agentId, max_scenarios: 2 } });
    const runId = created.body.test_run_id as string;

    const list = await cli('runs', 'list', '--agent', 'Ava', '--json');
    expect(list.json()).toEqual([expect.objectContaining({ test_run_id: runId, status: 'pending' })]);
    expect((await cli('runs', 'list', '--limit', '1')).out).toMatch(new RegExp(`RUN\\s+STATUS.*\\n${runId}\\s+pending\\s+0%\\s+0/0/0/2`));

    const shown = await cli('runs', 'show', runId, '--json');
    expect(shown.json()).toMatchObject({ test_run_id: runId, results: [{ status: 'pending' }, { status: 'pending' }] });
    expect((await cli('runs', 'show', runId)).out).toMatch(/NOT RUN\s+-\s+not finished/);

    const canceled = await cli('runs', 'cancel', runId, '--json');
    expect(canceled.json()).toMatchObject({ test_run_id: runId, status: 'canceled' });
    expect((await cli('runs', 'cancel', runId)).out).toBe(`${runId} is canceled (0 passed, 0 failed, 0 errors of 2)\n`);
    expect(await cli('runs', 'show', 'TR-999999')).toMatchObject({ code: 3, err: expect.stringMatching(/RUN_NOT_FOUND/) });
  });

  it('needs a service URL and key', async () => {
    const io = captureIo({ fetch: injectFetch(t.app) });
    let code = -1;
    const program = new Command().exitOverride();
    registerClientCommands(program, io, (c) => { code = c; });
    await program.parseAsync(['runs', 'list'], { from: 'user' });
    expect(code).toBe(3);
    expect(io.stderr).toMatch(/no service URL: pass --url or set REHEARSAL_URL/);
  });
});
