import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';
import { createTestContext, type TestContext } from '../harness.js';
import { axeScan, captureErrors, ensureWebBuilt, launchChromium, screenshot } from './browser.js';

// Workflow §3 and §4 in the dashboard: "Generate scenarios" (drafts → review → edit → save the selected ones)
// and "Schedules" (create, list, pause, firings), in Chromium against a listening server.

const POLL = { timeout: 10_000, interval: 100 };

const draft = (i: number, category: string) => ({
  slug: `draft-${i}`, name: `Draft ${i}`, description: 'A caller', category, tags: ['generated'],
  persona: 'Ana', goal: 'Get help', instructions: 'Be brief', opening_message: 'Hello',
  script: ['Hello', 'I need help', 'It is about my order', 'Order 123', 'Thanks', 'Bye'],
  criteria: [{ criterion: 'Greets', max_points: 1, required: false, check: null }, { criterion: 'Helps', max_points: 1, required: false, check: null },
    { criterion: 'Mentions the order', max_points: 1, required: false, check: { type: 'contains', value: '123' } }],
  pass_threshold: 0.75, max_turns: 8,
});

describe('dashboard: Generate scenarios and Schedules (Chromium)', { timeout: 90_000 }, () => {
  let t: TestContext;
  let llm: FakeOpenAiServer;
  let browser: Browser;
  let page: Page;
  let base = '';
  let errors: string[] = [];
  let n = 0;

  beforeAll(async () => {
    await ensureWebBuilt();
    llm = await startFakeOpenAi({
      apiKey: 'sk-gen',
      reply: (messages) => {
        const cats = [...messages[messages.length - 1].content!.matchAll(/category "([^"]+)"/g)].map((m) => m[1]);
        return JSON.stringify({ scenarios: cats.map((c) => draft(++n, c)) });
      },
    });
    t = await createTestContext({ config: { llm: { baseUrl: llm.baseUrl, apiKey: 'sk-gen', testerModel: null, judgeModel: 'judge-m', generatorModel: 'gen-m' } } });
    await t.call('POST', '/api/v1/agents', { body: { provider: 'provider_4', name: 'Front desk', config: { base_url: 'http://127.0.0.1:9/v1', model: 'm' } } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 860 } });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    errors = captureErrors(page);
    await page.goto(`${base}/runs`);
    await page.getByLabel('API key').fill(t.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await llm?.close();
  });

  it('generates drafts, lets one be edited and one left out, and saves only the selected ones', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Scenarios', exact: true }).click();
    await page.getByRole('link', { name: 'Generate scenarios' }).click();
    await page.getByRole('heading', { level: 1, name: 'Generate scenarios' }).waitFor();
    await page.getByLabel('What the agent does, or its system prompt').fill('A shop assistant that takes returns.');
    await page.getByLabel('How many').fill('3');
    await page.getByRole('button', { name: 'Generate drafts' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent(), POLL).toMatch(/3 drafts by gen-m/);
    expect(await axeScan(page, 'generate')).toEqual([]);
    await screenshot(page, 'generate');

    const drafts = page.getByRole('region', { name: /^Draft / });
    expect(await drafts.count()).toBe(3);
    // edit the first draft's name, leave the second out
    const first = drafts.nth(0).getByLabel('Template (JSON, editable)');
    const edited = JSON.parse(await first.inputValue());
    edited.name = 'Returns a gift';
    await first.fill(JSON.stringify(edited, null, 2));
    await drafts.nth(1).getByRole('checkbox').uncheck();
    await page.getByRole('button', { name: 'Save selected' }).click();
    await expect.poll(() => page.getByText(/^Saved 2:/).textContent(), POLL).toMatch(/Returns a gift/);

    const saved = (await t.call('GET', '/api/v1/scenarios?limit=200')).body.scenarios.filter((s: { tags: string[] }) => s.tags.includes('generated'));
    expect(saved.map((s: { name: string }) => s.name).sort()).toEqual(['Draft 3', 'Returns a gift']);
    expect(saved.map((s: { slug: string }) => s.slug).sort()).toEqual(['draft-1', 'draft-3']);
  });

  it('creates a schedule, shows its next run, pauses it and lists its firings', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Schedules', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Schedules' }).waitFor();
    await page.getByText('No schedules yet').waitFor();
    await page.getByLabel('Agent').selectOption({ label: 'Front desk' });
    await page.getByLabel('Cron').fill('30 2 * * *');
    await page.getByLabel('Time zone').fill('Europe/Berlin');
    await page.getByLabel('Max turns').fill('8');
    await page.getByLabel('Repeats').fill('3');
    await page.getByRole('button', { name: 'Create schedule' }).click();
    const row = page.getByRole('region', { name: 'Schedules table' }).getByRole('row').nth(1);
    await expect.poll(() => row.textContent(), POLL).toMatch(/30 2 \* \* \*\s*Europe\/Berlin/);
    expect(await row.textContent()).toMatch(/full · 8 turns · ×3/);
    const [s] = (await t.call('GET', '/api/v1/schedules')).body.schedules;
    expect(s).toMatchObject({ cron: '30 2 * * *', timezone: 'Europe/Berlin', max_turns: 8, repeats: 3, test_mode: 'full', is_active: true });
    expect(await row.locator('time').getAttribute('datetime')).toBe(s.next_run_at);
    expect(await axeScan(page, 'schedules')).toEqual([]);
    await screenshot(page, 'schedules');

    await row.getByRole('button', { name: 'Firings' }).click();
    await row.getByText('Not fired yet.').waitFor();
    await row.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(async () => (await t.call('GET', `/api/v1/schedules/${s.id}`)).body.is_active, POLL).toBe(false);
    await row.getByRole('button', { name: 'Resume' }).waitFor();

    // a bad cron is refused with the service's message, nothing is created
    await page.getByLabel('Cron').fill('every night');
    await page.getByRole('button', { name: 'Create schedule' }).click();
    await page.getByText(/cron must have 5 fields/).waitFor();
    expect((await t.call('GET', '/api/v1/schedules')).body.total).toBe(1);
  });

  it('a webhook made in the dashboard offers test_run_regressed, ticked by default like the other three', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('button', { name: 'Create a webhook' }).click();
    await page.getByLabel('Endpoint URL').fill('https://hooks.example.com/nightly');
    expect(await page.getByRole('checkbox', { name: 'test run regressed' }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByLabel(/Signing secret of/).waitFor();
    await expect.poll(async () => (await t.call('GET', '/api/v1/webhooks')).body.total, POLL).toBe(1);
    const [hook] = (await t.call('GET', '/api/v1/webhooks')).body.webhooks;
    expect([...hook.events].sort()).toEqual(['test_run_canceled', 'test_run_completed', 'test_run_failed', 'test_run_regressed']);
  });

  it('had no console errors', () => {
    // the refused cron's 400 is logged by the browser as a failed request; nothing else may be
    expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
  });
});
