import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClientCommands } from '../../src/cli/commands.js';
import { runValidate } from '../../src/cli/project-commands.js';
import { createTestContext, expectError, type TestContext } from '../harness.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';
import { injectFetch } from '../client/inject-fetch.js';
import { captureIo } from './capture.js';

// POST /scenarios/generate against a fake generator model speaking the Chat Completions wire format,
// and `rehearsal scenarios generate --out` writing files that `rehearsal validate` accepts.

const draft = (i: number, category: string, extra: Record<string, unknown> = {}) => ({
  slug: i === 1 ? 'refund-request' : `case-${i}`, name: `Case ${i}`, description: 'A caller', category, tags: ['generated'],
  persona: 'Ana', goal: 'Get help', instructions: 'Be brief', opening_message: 'Hello',
  script: ['Hi', 'I need help', 'It is about my order', 'Order 123', 'Thanks', 'Bye'],
  criteria: [{ criterion: 'Greets', max_points: 1, required: false, check: null }, { criterion: 'Helps', max_points: 2, required: true, check: null },
    { criterion: 'Mentions the order', max_points: 1, required: false, check: { type: 'contains', value: '123' } }],
  pass_threshold: 0.75, max_turns: 8, ...extra,
});

let t: TestContext;
let llm: FakeOpenAiServer;
let round = 0;
// 'retry': the first answer lacks one draft and has an invalid one, the second fills them in;
// 'never': one category always comes back invalid; 'extra': more drafts than asked, in reverse order
let mode: 'retry' | 'never' | 'extra' = 'retry';
beforeAll(async () => {
  llm = await startFakeOpenAi({
    apiKey: 'sk-gen',
    reply: (messages) => {
      round++;
      const cats = [...messages[messages.length - 1].content!.matchAll(/category "([^"]+)"/g)].map((m) => m[1]);
      // the first answer: one draft with a short script (invalid), one duplicate slug, one missing; the retry fills in
      // safety drafts: no deterministic check on the first answer, no persona on the second
      if (mode === 'never') return JSON.stringify({ scenarios: cats.map((c, i) => draft(round * 10 + i, c, c !== 'safety' ? {} : round === 1 ? { criteria: [{ criterion: 'Only a judge' }, { criterion: 'Another' }] } : { persona: ' ' })) });
      if (mode === 'extra') return JSON.stringify({ scenarios: [...cats, ...cats, 'billing'].map((c, i) => draft(round * 10 + i, c)).reverse() });
      const out = cats.map((c, i) => draft(round * 10 + i, c, round === 1 && i === 0 ? { script: ['Hi'] } : {}));
      if (round === 1) { out[2] = { ...out[2], slug: out[1].slug }; out.pop(); }
      return JSON.stringify({ scenarios: out });
    },
  });
  t = await createTestContext({ config: { llm: { baseUrl: llm.baseUrl, apiKey: 'sk-gen', testerModel: null, judgeModel: 'judge-m', generatorModel: 'gen-m' } } });
});
afterAll(async () => { await t?.close(); await llm?.close(); });

describe('POST /scenarios/generate', () => {
  it('validates drafts, asks again once for the missing ones, covers the categories asked, keeps slugs unique', async () => {
    round = 0;
    const res = await t.call('POST', '/api/v1/scenarios/generate', { body: { description: 'A shop assistant', count: 4, categories: ['billing', 'safety'] } });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('gen-m');
    expect(res.body.scenarios.length + res.body.dropped).toBe(4);
    expect(res.body.scenarios).toHaveLength(4);
    expect(res.body.scenarios.map((d: any) => d.category).sort()).toEqual(['billing', 'billing', 'safety', 'safety']);
    expect(new Set(res.body.scenarios.map((d: any) => d.slug)).size).toBe(4);
    expect(round).toBe(2);
  });

  it('drops what is still invalid after asking once more: scenarios.length + dropped = count', async () => {
    round = 0;
    mode = 'never';
    try {
      const res = await t.call('POST', '/api/v1/scenarios/generate', { body: { description: 'A shop assistant', count: 5, categories: ['billing', 'safety'] } });
      expect(res.status).toBe(200);
      // billing, safety, billing, safety, billing: the two safety drafts never validate (no deterministic check)
      expect(res.body).toMatchObject({ dropped: 2, model: 'gen-m' });
      expect(res.body.scenarios.map((d: any) => d.category)).toEqual(['billing', 'billing', 'billing']);
      expect(round).toBe(2);
    } finally { mode = 'retry'; }
  });

  it('discards extra drafts and takes them in any order, by category', async () => {
    round = 0;
    mode = 'extra';
    try {
      const res = await t.call('POST', '/api/v1/scenarios/generate', { body: { description: 'A shop assistant', count: 3, categories: ['billing', 'safety'] } });
      expect(res.status).toBe(200);
      expect(res.body.dropped).toBe(0);
      expect(res.body.scenarios.map((d: any) => d.category)).toEqual(['billing', 'safety', 'billing']);
      expect(round).toBe(1);
    } finally { mode = 'retry'; }
  });

  it('defaults to the library\'s categories, one draft each when count allows', async () => {
    round = 0;
    const res = await t.call('POST', '/api/v1/scenarios/generate', { body: { description: 'A shop assistant', count: 50 } });
    expect(res.status).toBe(200);
    const { SCENARIO_CATEGORIES } = await import('../../src/modules/scenarios/library.js');
    expect(new Set(res.body.scenarios.map((d: any) => d.category))).toEqual(new Set(SCENARIO_CATEGORIES));
    expect(res.body.scenarios.length + res.body.dropped).toBe(50);
  });

  it('errors: missing description, bad count, unknown field, unknown agent, no model', async () => {
    expectError(await t.call('POST', '/api/v1/scenarios/generate', { body: { count: 2 } }), 400, 'MISSING_REQUIRED_FIELD');
    expectError(await t.call('POST', '/api/v1/scenarios/generate', { body: { description: 'x', count: 51 } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/scenarios/generate', { body: { description: 'x', count: 1.5 } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/scenarios/generate', { body: { description: 'x', colour: 1 } }), 400, 'INVALID_FIELD_VALUE');
    expectError(await t.call('POST', '/api/v1/scenarios/generate', { body: { description: 'x', agent_id: '01900000-0000-7000-8000-000000000000' } }), 400, 'AGENT_NOT_FOUND');
    const bare = await createTestContext();
    try {
      const res = await bare.call('POST', '/api/v1/scenarios/generate', { body: { description: 'x' } });
      expectError(res, 409, 'INVALID_STATE');
      expect(res.body.error).toMatch(/REHEARSAL_/);
    } finally { await bare.close(); }
  });
});

describe('rehearsal scenarios generate --out', () => {
  it('writes <slug>.yaml files that validate', async () => {
    round = 0;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-gen-'));
    fs.writeFileSync(path.join(dir, 'prompt.txt'), 'You are a shop assistant.');
    const io = captureIo({ fetch: injectFetch(t.app), env: { REHEARSAL_URL: 'http://rehearsal.test', REHEARSAL_API_KEY: t.key } });
    let code = -1;
    const program = new Command().exitOverride();
    registerClientCommands(program, io, (c) => { code = c; });
    await program.parseAsync(['node', 'rehearsal', 'scenarios', 'generate', '--description-file', path.join(dir, 'prompt.txt'), '--count', '3', '--out', path.join(dir, 'rehearsal/scenarios')]);
    expect(code, io.stderr).toBe(0);
    const files = fs.readdirSync(path.join(dir, 'rehearsal/scenarios'));
    expect(files).toHaveLength(3);
    expect(fs.readFileSync(path.join(dir, 'rehearsal/scenarios', files[0]), 'utf8')).not.toMatch(/^slug:/m);
    const v = captureIo();
    expect(await runValidate({ dir: path.join(dir, 'rehearsal') }, v), v.stderr).toBe(0);

    // again into the same folder: the slugs exist, nothing is written (exit 3) unless --force
    const again = async (...extra: string[]) => {
      round = 0;
      const p2 = new Command().exitOverride();
      registerClientCommands(p2, io, (c) => { code = c; });
      await p2.parseAsync(['node', 'rehearsal', 'scenarios', 'generate', '--description-file', path.join(dir, 'prompt.txt'), '--count', '3', '--out', path.join(dir, 'rehearsal/scenarios'), ...extra]);
      return code;
    };
    const before = files.map((f) => fs.statSync(path.join(dir, 'rehearsal/scenarios', f)).mtimeMs);
    io.stderr = '';
    expect(await again()).toBe(3);
    expect(io.stderr).toMatch(/exist; nothing was written \(pass --force to overwrite\)/);
    expect(files.map((f) => fs.statSync(path.join(dir, 'rehearsal/scenarios', f)).mtimeMs)).toEqual(before);
    expect(await again('--force')).toBe(0);
    io.stderr = '';
    const missing = new Command().exitOverride();
    registerClientCommands(missing, io, (c) => { code = c; });
    await missing.parseAsync(['node', 'rehearsal', 'scenarios', 'generate', '--description-file', path.join(dir, 'nope.txt'), '--out', dir]);
    expect(code).toBe(3);
    expect(io.stderr).toMatch(/cannot read .*nope\.txt/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
