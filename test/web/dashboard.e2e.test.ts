import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeOpenAiServer } from '../fakes/openai-agent.js';
import { createTestContext, waitForRun, type TestContext } from '../harness.js';
import { axeScan, captureErrors, ensureWebBuilt, launchChromium, screenshot } from './browser.js';
import { AGENT_TOOLS, SCENARIOS, startDentalAgent, startHookEndpoint, TOOL_MOCKS } from './fixtures.js';

// The dashboard in a real browser against a real listening server (run engine and webhook worker included):
// the flows a user walks through, axe on every main page, and no console errors anywhere.

/** expect.poll waits 1 s by default: too short for a page that refetches on a busy shared machine. */
const POLL = { timeout: 10_000, interval: 100 };

describe('web dashboard (Chromium)', { timeout: 90_000 }, () => {
  let t: TestContext;
  let agentServer: FakeOpenAiServer;
  let hooks: Awaited<ReturnType<typeof startHookEndpoint>>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let base = '';
  let errors: string[] = [];
  const ids: { agent?: string; run?: string } = {};

  /** axe on the current page (no serious/critical violations allowed), then the README screenshot. */
  const audit = async (label: string, fullPage = true) => {
    expect(await axeScan(page, label)).toEqual([]);
    await screenshot(page, label, fullPage);
  };
  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();
  const nav = async (name: string) => { await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click(); };

  beforeAll(async () => {
    await ensureWebBuilt();
    [agentServer, hooks] = await Promise.all([startDentalAgent(), startHookEndpoint()]);
    t = await createTestContext({ engine: { pollIntervalMs: 50 }, env: { REHEARSAL_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    for (const s of SCENARIOS) expect((await t.call('POST', '/api/v1/scenarios', { body: s })).status).toBe(201);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
    // axe is injected as an inline script, which the dashboard's CSP forbids; the CSP has its own test below
    context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 860 } });
    // a missing element fails with the locator in the message, well before the test's own timeout
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    errors = captureErrors(page);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await Promise.all([agentServer?.close(), hooks?.close()]);
  });

  it('signs in with an API key; the key never reaches browser storage', async () => {
    await page.goto(`${base}/runs`);
    await heading('Sign in to Rehearsal');
    await audit('sign-in');
    await page.getByLabel('API key').fill(t.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Runs');
    await page.getByRole('heading', { name: 'Register an agent to get started' }).waitFor();
    const stored = await page.evaluate(() => JSON.stringify({ l: { ...localStorage }, s: { ...sessionStorage }, c: document.cookie }));
    expect(stored).not.toContain(t.key);
    expect(stored).not.toContain('rehearsal_session');
    const cookie = (await context.cookies()).find((c) => c.name === 'rehearsal_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/v1' });
    await audit('runs-empty');
  });

  it('registers an agent with the provider form and validates its credentials', async () => {
    await nav('Agents');
    await page.getByRole('link', { name: 'Register your first agent' }).click();
    await heading('Register an agent');
    await page.getByLabel('Provider').selectOption('provider_4');
    await page.getByLabel('Name', { exact: true }).fill('Front desk');
    await page.getByLabel('Description').fill('Dental practice receptionist');
    await page.getByLabel('base_url').fill(agentServer.baseUrl);
    await page.getByLabel('model', { exact: true }).fill('receptionist-1');
    await page.getByLabel('api_key').fill('sk-test');
    await page.getByLabel('tools', { exact: true }).fill(JSON.stringify(AGENT_TOOLS));
    await page.getByLabel('tool_mocks').fill(JSON.stringify(TOOL_MOCKS));
    await audit('agent-new');
    await page.getByRole('button', { name: 'Register agent' }).click();
    await heading(/Front desk/);
    ids.agent = page.url().split('/').pop();
    await page.getByRole('button', { name: 'Validate credentials' }).click();
    await page.getByText('Credentials accepted').waitFor();
  });

  it('builds a suite from library templates and registers a webhook', async () => {
    await nav('Suites');
    await page.getByRole('link', { name: 'Default' }).waitFor();
    await audit('suites');
    await page.getByRole('link', { name: 'New suite' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Front desk smoke');
    await page.getByLabel('Filter templates').fill('E2E');
    for (const s of ['Book a cleaning', 'Ask for prices', 'Polite goodbye']) await page.getByRole('button', { name: `Add E2E ${s}` }).click();
    await page.getByRole('button', { name: 'Move E2E Polite goodbye up' }).click();
    await page.getByRole('button', { name: 'Create suite' }).click();
    await page.getByRole('heading', { level: 1, name: 'Front desk smoke' }).waitFor();
    const names = await page.locator('ol.pick-list .pick-name').allTextContents();
    expect(names).toEqual(['E2E Book a cleaning', 'E2E Polite goodbye', 'E2E Ask for prices']);
    await page.getByLabel('Filter templates').fill('');
    await audit('suite');

    await nav('Webhooks');
    await page.getByRole('button', { name: 'Create a webhook' }).click();
    await page.getByLabel('Endpoint URL').fill(hooks.url);
    await page.getByLabel('Description').fill('Team chat notifier');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secret = await page.getByLabel(/Signing secret of/).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('link', { name: hooks.url }).waitFor();
    await audit('webhooks');
  });

  it('starts a run from the form, shows progress, and the graded summary with the latency chart', async () => {
    // an earlier run of the same agent, for the pass-rate-over-time chart
    const suites = (await t.call('GET', '/api/v1/test-suites')).body.test_suites;
    const suiteId = suites.find((s: any) => s.name === 'Front desk smoke').id;
    const first = await t.call('POST', '/api/v1/runs', { body: { agent_id: ids.agent, test_suite_id: suiteId, max_scenarios: 2, max_turns: 3 } });
    await waitForRun(t, first.body.id);

    await nav('Runs');
    await page.getByRole('button', { name: 'Start a run' }).click();
    await page.getByLabel('Agent').first().selectOption({ label: 'Front desk' });
    await page.getByLabel('Suite').first().selectOption({ label: 'Front desk smoke (3 scenarios)' });
    await page.getByLabel('Max turns').fill('3');
    await page.getByLabel('Run name').fill('Nightly front desk');
    // a slower agent for a moment, so the run is seen in flight
    agentServer.setLatency(2000);
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
    ids.run = page.url().split('/').pop();
    await page.getByRole('heading', { name: 'In progress' }).waitFor();
    expect(await page.locator('#progress-text').textContent()).toMatch(/^\d of 3 scenarios finished/);
    await page.getByRole('button', { name: 'Cancel run' }).waitFor();
    agentServer.setLatency(0);
    await page.locator('h1 .badge', { hasText: 'completed' }).waitFor({ timeout: 45_000 });
    expect(await page.getByRole('heading', { name: 'In progress' }).count()).toBe(0);
    const stat = (label: string) => page.locator('.stat', { has: page.getByText(label, { exact: true }) }).locator('dd').first().textContent();
    // the rule-based demo judge cannot decide "Stays polite throughout": that scenario is the judge's error,
    // not a silent pass (trust §6), and it is left out of the pass rate and of the coverage
    expect(await stat('Pass rate')).toBe('50%');
    expect(await stat('Passed')).toBe('1');
    expect(await stat('Failed')).toBe('1');
    expect(await stat('Errors')).toBe('1');
    expect(await stat('Coverage')).toBe('66.7%');
    expect(await page.locator('.faults-sentence').textContent()).toMatch(/^1 outcome was not the agent's doing \(1 judge/);
    expect(await page.locator('figure.chart figcaption').first().textContent()).toMatch(/Average reply latency per scenario \(3 scenarios/);
    await page.getByRole('button', { name: 'Failed', exact: true }).click();
    // the filter asks the API (status=failed): one header row and the one failed scenario
    await expect.poll(() => page.getByRole('region', { name: 'Scenario results' }).getByRole('row').count(), POLL).toBe(2);
    await page.getByRole('region', { name: 'Scenario results' }).getByRole('link', { name: 'E2E Polite goodbye' }).waitFor();
    await page.getByRole('button', { name: 'All', exact: true }).click();
    await page.getByRole('link', { name: 'E2E Ask for prices' }).waitFor();
    await audit('run');

    await nav('Runs');
    await page.getByLabel('Agent').selectOption({ label: 'Front desk' });
    await page.getByText('Pass rate over time: Front desk').waitFor();
    // the chart and the filtered table load separately: wait for the table too
    await expect.poll(() => page.getByRole('region', { name: 'Runs table' }).getByRole('row').count(), POLL).toBe(3);
    await audit('runs');
  });

  it('shows the transcript with tool calls, and scrolls to and highlights the turn an evidence quote cites', async () => {
    await page.goto(`${base}/runs/${ids.run}`);
    await page.getByRole('link', { name: 'E2E Book a cleaning' }).click();
    await heading(/E2E Book a cleaning/);
    const bubbles = page.locator('ol.transcript > li');
    expect(await bubbles.count()).toBe(6);
    await page.locator('.tool-call', { hasText: 'check_availability' }).first().waitFor();
    expect(await page.locator('.tool-call pre').first().textContent()).toContain('"day": "Tuesday"');
    expect(await page.locator('.bubble.assistant .latency').first().textContent()).toMatch(/^replied in [\d.]+ m?s$/);
    const criterion = page.locator('li.criterion', { hasText: 'Confirms the booking' });
    expect(await criterion.locator('.badge').first().textContent()).toBe('MET');
    expect(await criterion.textContent()).toContain('1 / 1 points');
    await criterion.getByRole('button', { name: /booked.*entry #1 \(agent\)/ }).click();
    const cited = page.locator('#turn-1');
    await expect.poll(() => cited.getAttribute('class'), POLL).toContain('active');
    expect(await cited.locator('mark.evidence.current').textContent()).toBe('booked');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('turn-1');
    expect(await page.locator('li.criterion', { hasText: 'Stays polite throughout' }).locator('.badge').first().textContent()).toBe('UNSURE');
    await audit('scenario-run');
  });

  it('lists deliveries with every attempt, sends a test event and redelivers', async () => {
    await nav('Webhooks');
    await page.getByRole('link', { name: hooks.url }).click();
    await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
    await page.locator('.delivery-head', { hasText: 'test_run_completed' }).first().waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Send test event' }).click();
    const ping = page.locator('.deliveries > li', { hasText: 'ping' });
    await ping.getByRole('region', { name: 'Attempts' }).getByRole('cell', { name: '200' }).waitFor();
    await ping.getByRole('button', { name: 'Redeliver now' }).click();
    await expect.poll(() => ping.getByRole('region', { name: 'Attempts' }).getByRole('row').count(), POLL).toBe(3);
    expect(hooks.received()).toBeGreaterThanOrEqual(3);
    await audit('webhook');
  });

  it('browses the library and the agent, with the pass rate over time', async () => {
    await nav('Scenarios');
    await page.getByRole('searchbox', { name: 'Search' }).fill('prompt injection');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('.scenario-card').first().waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByRole('link', { name: 'E2E Book a cleaning' }).waitFor();
    await audit('scenarios', false);
    await page.getByRole('link', { name: 'E2E Book a cleaning' }).click();
    await page.getByRole('heading', { name: 'Rubric' }).waitFor();
    expect(await page.getByRole('region', { name: 'Criteria' }).textContent()).toContain('Tool check_availability is called');
    await audit('scenario');
    await page.goto(`${base}/agents/${ids.agent}`);
    await page.getByText('Pass rate over time (completed runs)').waitFor();
    await audit('agent');
    await nav('Agents');
    await page.getByRole('link', { name: 'Front desk' }).waitFor();
    await audit('agents');
  });

  it('creates a key shown once, and revoking it signs out the session opened with it', async () => {
    await nav('API keys');
    await page.getByLabel('Name', { exact: true }).fill('laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByLabel('New key “laptop”').inputValue();
    expect(key).toMatch(/^sk_live_[A-Za-z0-9]{40}$/);
    await audit('api-keys');

    // a second browser signs in with the new key
    const other = await browser.newContext();
    const page2 = await other.newPage();
    const errors2 = captureErrors(page2);
    await page2.goto(`${base}/agents`);
    await page2.getByLabel('API key').fill(key);
    await page2.getByRole('button', { name: 'Sign in' }).click();
    await page2.getByRole('link', { name: 'Front desk' }).waitFor();

    await page.getByRole('button', { name: 'Revoke laptop' }).click();
    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Revoke laptop' }).count(), POLL).toBe(0);

    await page2.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
    await page2.getByRole('heading', { name: 'Sign in to Rehearsal' }).waitFor();
    // the page's parallel requests race: the first 401 clears the cookie, so a later one may report the
    // missing key rather than the revocation; either way the session is over
    expect(await page2.getByRole('status').textContent()).toMatch(/signed out.*(revoked|missing api key)/i);
    expect((await other.cookies()).find((c) => c.name === 'rehearsal_session')).toBeUndefined();
    // the only console error is the browser reporting the 401 that ended the session
    expect(errors2.filter((e) => !/status of 401/.test(e))).toEqual([]);
    await other.close();
  });

  it('runs under its Content-Security-Policy without violations', async () => {
    const strict = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const p = await strict.newPage();
    const cspErrors = captureErrors(p);
    await p.goto(`${base}/runs/${ids.run}`);
    await p.getByLabel('API key').fill(t.key);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.locator('figure.chart svg').first().waitFor();
    await p.getByRole('link', { name: 'E2E Book a cleaning' }).click();
    await p.locator('.tool-call').first().waitFor();
    expect(cspErrors).toEqual([]);
    await strict.close();
  });

  it('signs out, and had no console errors along the way', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to Rehearsal');
    expect(await page.getByRole('status').textContent()).toBe('You are signed out.');
    expect(errors).toEqual([]);
  });
});
