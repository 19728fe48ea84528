import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSync } from '../../src/cli/project-commands.js';
import { createTestContext, type TestContext } from '../harness.js';
import { injectFetch } from '../client/inject-fetch.js';
import { captureIo } from './capture.js';

let t: TestContext;
let dir: string;
beforeAll(async () => {
  t = await createTestContext();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-sync-'));
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const write = (name: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
  fs.writeFileSync(path.join(dir, name), text);
};
const scenario = (name: string, extra = '') => `name: ${name}\ncriteria:\n  - criterion: Greets\n${extra}`;

async function sync(prune = false) {
  const io = captureIo({ fetch: injectFetch(t.app), env: { REHEARSAL_URL: 'http://rehearsal.test', REHEARSAL_API_KEY: t.key } });
  const code = await runSync({ dir, prune }, io);
  expect(code, io.stderr).toBe(0);
  return io.stdout;
}
const get = async (p: string) => (await t.call('GET', p)).body;

describe('rehearsal sync', () => {
  it('creates, then changes nothing (updated_at included), then updates only what changed', async () => {
    write('scenarios/hello.yaml', scenario('Hello'));
    write('scenarios/bye.yaml', scenario('Bye', 'max_turns: 3\n'));
    write('suites/smoke.yaml', 'name: Smoke\nscenarios: [hello, bye, book-new-appointment]\n');
    expect(await sync()).toBe('templates: 2 created, 0 updated, 0 unchanged\nsuites: 1 created, 0 updated, 0 unchanged\n');
    const before = await get('/api/v1/scenarios?slug=hello');
    expect(before.scenarios[0]).toMatchObject({ name: 'Hello', source: 'files', slug: 'hello' });
    const suiteBefore = (await get('/api/v1/test-suites')).test_suites.find((s: any) => s.name === 'Smoke');
    expect(suiteBefore).toMatchObject({ source: 'files', scenario_count: 3 });

    expect(await sync()).toBe('templates: 0 created, 0 updated, 2 unchanged\nsuites: 0 created, 0 updated, 1 unchanged\n');
    expect((await get('/api/v1/scenarios?slug=hello')).scenarios[0].updated_at).toBe(before.scenarios[0].updated_at);

    write('scenarios/hello.yaml', scenario('Hello', 'goal: Say hello\n'));
    expect(await sync()).toBe('templates: 0 created, 1 updated, 1 unchanged\nsuites: 0 created, 0 updated, 1 unchanged\n');
    expect((await get('/api/v1/scenarios?slug=hello')).scenarios[0].goal).toBe('Say hello');
  });

  it('--prune deletes only what files made and no file names, never API-made templates or built-ins', async () => {
    await t.call('POST', '/api/v1/scenarios', { body: { name: 'Made in the API', slug: 'api-made', criteria: [{ criterion: 'x' }] } });
    fs.rmSync(path.join(dir, 'scenarios/bye.yaml'));
    write('suites/smoke.yaml', 'name: Smoke\nscenarios: [hello]\n');
    write('suites/other.yaml', 'name: Other\nscenarios: [hello]\n');
    expect(await sync()).toBe('templates: 0 created, 0 updated, 1 unchanged\nsuites: 1 created, 1 updated, 0 unchanged\n');
    fs.rmSync(path.join(dir, 'suites/other.yaml'));
    expect(await sync(true)).toBe('templates: 0 created, 0 updated, 1 unchanged\nsuites: 0 created, 0 updated, 1 unchanged\ndeleted suite Other\ndeleted template bye\n');
    expect((await get('/api/v1/scenarios?slug=bye')).total).toBe(0);
    expect((await get('/api/v1/scenarios?slug=api-made')).total).toBe(1);
    expect((await get('/api/v1/scenarios?slug=book-new-appointment')).total).toBe(1);
    expect(await sync(true)).toBe('templates: 0 created, 0 updated, 1 unchanged\nsuites: 0 created, 0 updated, 1 unchanged\n');
  });
});

describe('rehearsal sync of a template using every field', () => {
  it('is unchanged on the second sync whatever the key order or spacing in the file', async () => {
    write('scenarios/full.yaml', [
      'name: "  Full template "', 'description: Every field', 'category: billing', 'tags: [b, a]', 'persona: Ana, 70', 'goal: A refund',
      'instructions: Be polite', 'opening_message: Hello', 'script: [Hello, I want a refund, Thanks]', 'pass_threshold: 0.5', 'max_turns: 6',
      'criteria:',
      '  - criterion: Greets', '    max_points: 2', '    required: true',
      '  - criterion: Says refund', '    check: { value: refund, role: assistant, type: contains }',
      '  - criterion: Calls the tool', '    check: { arguments: { reason: dup, amount: 5 }, name: refund_payment, type: tool_called }',
      '  - criterion: Short', '    check: { value: 6, type: max_turns }',
      '  - criterion: Answers', '    check: { type: responded_every_turn }',
      '',
    ].join('\n'));
    const first = await sync();
    expect(first).toMatch(/^templates: 1 created, 0 updated, \d+ unchanged$/m);
    const before = (await get('/api/v1/scenarios?slug=full')).scenarios[0];
    const second = await sync();
    expect(second).toMatch(/^templates: 0 created, 0 updated, \d+ unchanged$/m);
    expect((await get('/api/v1/scenarios?slug=full')).scenarios[0].updated_at).toBe(before.updated_at);
    fs.rmSync(path.join(dir, 'scenarios/full.yaml'));
  });
});

describe('rehearsal sync with an inline agent', () => {
  it('upserts it by name: created, then unchanged (updated_at included), then updated when its config changes', async () => {
    const agentYaml = (model: string) => `agent:\n  provider: provider_4\n  name: Files desk\n  config:\n    base_url: http://127.0.0.1:9/v1\n    model: ${model}\n    api_key: \${DESK_KEY}\n`;
    const run = async () => {
      const io = captureIo({ fetch: injectFetch(t.app), env: { REHEARSAL_URL: 'http://rehearsal.test', REHEARSAL_API_KEY: t.key, DESK_KEY: 'sk-desk' } });
      const code = await runSync({ dir }, io);
      expect(code, io.stderr).toBe(0);
      return io.stdout.split('\n')[0];
    };
    write('rehearsal.yaml', agentYaml('m1'));
    expect(await run()).toBe('agent: 1 created, 0 updated, 0 unchanged');
    const agent = (await get('/api/v1/agents')).agents.find((a: any) => a.name === 'Files desk');
    expect(await run()).toBe('agent: 0 created, 0 updated, 1 unchanged');
    expect((await get(`/api/v1/agents/${agent.id}`)).updated_at).toBe(agent.updated_at);
    write('rehearsal.yaml', agentYaml('m2'));
    expect(await run()).toBe('agent: 0 created, 1 updated, 0 unchanged');
    expect((await get(`/api/v1/agents/${agent.id}`)).updated_at).not.toBe(agent.updated_at);
    fs.rmSync(path.join(dir, 'rehearsal.yaml'));
  });

  it('refuses (exit 3, saying why) an inline agent whose name is registered for another provider', async () => {
    const made = await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_5', name: 'Switched desk', config: { api_key: 'key_retell', agent_id: 'agent_1' } } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    write('rehearsal.yaml', 'agent:\n  provider: provider_4\n  name: Switched desk\n  config:\n    base_url: http://127.0.0.1:9/v1\n    model: m\n');
    const io = captureIo({ fetch: injectFetch(t.app), env: { REHEARSAL_URL: 'http://rehearsal.test', REHEARSAL_API_KEY: t.key } });
    expect(await runSync({ dir }, io)).toBe(3);
    expect(io.stderr).toMatch(/the agent "Switched desk" is registered for provider_5, and rehearsal.yaml defines it for provider_4/);
    expect((await get(`/api/v1/agents/${made.body.id}`)).provider).toBe('provider_5');
    fs.rmSync(path.join(dir, 'rehearsal.yaml'));
  });
});
