import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RehearsalClient, type Run } from '../client/index.js';
import { loadConfig, type Config } from '../config.js';
import { startDemoJudge, type DemoJudge } from '../demo/demo-judge.js';
import { SAMPLE_AGENT_NAME, SAMPLE_AGENT_TOOL_ALIASES, startSampleAgent, type SampleAgent } from '../demo/sample-agent.js';
import { createApiKey } from '../modules/api-keys/api-keys.service.js';
import { findOrCreateOrganization } from '../modules/organizations/organizations.service.js';
import { startService, type Service } from '../server.js';
import { describeError, type CliIo } from './io.js';
import { createProgress } from './progress.js';
import { collectResults, renderTable, summaryLines } from './report.js';

// `rehearsal demo`: the whole product in one command, offline. An embedded service on a free loopback port
// in a fresh data dir, the sample receptionist agent, an organization and key, the 20 demo scenarios with the
// scripted caller, then the results. With REHEARSAL_LLM_* set, the caller and judge are real models;
// otherwise judge criteria go to the rule-based demo judge (see src/demo/demo-judge.ts).

export interface DemoOptions {
  dataDir?: string;
  /** Poll interval while waiting (ms); the demo's conversations are local, so it polls fast. */
  intervalMs?: number;
  timeoutMs?: number;
}

/** The service configuration for the demo: embedded, loopback, quiet, fast to pick up work. */
function demoConfig(env: NodeJS.ProcessEnv, dataDir: string, judge: DemoJudge | null): Config {
  const { DATABASE_URL: _db, REHEARSAL_SECRET_KEY: _secret, PORT: _port, HOST: _host, ...rest } = env;
  const config = loadConfig({
    ...rest,
    PORT: '0',
    HOST: '127.0.0.1',
    REHEARSAL_DATA_DIR: dataDir,
    LOG_LEVEL: env.LOG_LEVEL ?? 'error',
    REHEARSAL_SCENARIO_CONCURRENCY: env.REHEARSAL_SCENARIO_CONCURRENCY ?? '20',
  });
  if (judge) config.llm = { baseUrl: judge.baseUrl, apiKey: judge.apiKey, testerModel: null, judgeModel: judge.model, demoJudge: true };
  return config;
}

function describeGraders(config: Config, judge: DemoJudge | null): string[] {
  if (judge) {
    return [
      '  caller     scripted: each scenario plays its own script (no LLM)',
      '  judge      deterministic checks + a rule-based demo judge for the judge criteria: keyword rules written for',
      '             this sample agent, not judgments (no LLM;',
      '             set REHEARSAL_LLM_BASE_URL, REHEARSAL_LLM_API_KEY, REHEARSAL_TESTER_MODEL and REHEARSAL_JUDGE_MODEL for real models)',
    ];
  }
  return [
    `  caller     ${config.llm.testerModel ? `${config.llm.testerModel} at ${config.llm.baseUrl}` : 'scripted: each scenario plays its own script'}`,
    `  judge      deterministic checks + ${config.llm.judgeModel ? `${config.llm.judgeModel} at ${config.llm.baseUrl}` : 'no judge model (judge criteria stay UNSURE: set REHEARSAL_JUDGE_MODEL)'}`,
  ];
}

export async function runDemo(opts: DemoOptions, io: CliIo): Promise<number> {
  const fresh = !opts.dataDir;
  const dataDir = path.resolve(opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-demo-')));
  fs.mkdirSync(dataDir, { recursive: true });
  const started = Date.now();
  let agent: SampleAgent | null = null;
  let judge: DemoJudge | null = null;
  let svc: Service | null = null;
  try {
    agent = await startSampleAgent();
    judge = io.env.REHEARSAL_LLM_BASE_URL ? null : await startDemoJudge();
    const config = demoConfig(io.env, dataDir, judge);
    svc = await startService(config, { api: true, worker: true, print: () => {}, engine: { pollIntervalMs: 50 } });
    const { org } = await findOrCreateOrganization(svc.deps.db, 'default', new Date());
    const key = (await createApiKey(svc.deps, { orgId: org.id }, { name: 'demo' })).key;
    const client = new RehearsalClient({ baseUrl: svc.url!, apiKey: key, fetch: io.fetch });

    io.out([
      'Rehearsal demo: a sample dental-clinic receptionist ("Ava") against the 20 built-in demo scenarios.',
      `  data dir   ${dataDir}${fresh ? ' (fresh)' : ''}`,
      `  service    ${svc.url}/api/v1 (embedded PostgreSQL, in-process worker)`,
      `  agent      ${SAMPLE_AGENT_NAME} at ${agent.baseUrl} (provider_4: OpenAI-compatible)`,
      ...describeGraders(config, judge),
      '',
    ].join('\n') + '\n');

    const existing = (await client.agents.list({ provider: 'provider_4', limit: 100 })).agents.find((a) => a.name === SAMPLE_AGENT_NAME);
    // the agent listens on a new port every time: a reused data dir gets the registration updated
    const registered = existing
      ? await client.agents.update(existing.id, { config: agent.config, is_active: true, tool_aliases: SAMPLE_AGENT_TOOL_ALIASES })
      : await client.agents.create({
        provider: 'provider_4', name: SAMPLE_AGENT_NAME, description: 'Rule-based sample agent shipped with Rehearsal', config: agent.config, tool_aliases: SAMPLE_AGENT_TOOL_ALIASES,
      });
    const check = await client.agents.validate(registered.id);
    if (!check.valid) throw new Error(`the sample agent did not validate: ${check.message}`);

    const created = await client.runs.create({ agent_id: registered.id, test_mode: 'demo', max_turns: 10, name: 'Demo · sample receptionist' });
    io.out(`Run ${created.test_run_id} started: ${created.total_scenarios} scenarios, up to 10 turns each\n`);
    for (const w of created.warnings) io.out(`  warning: ${w}\n`);
    const progress = createProgress(io, { minIntervalMs: 1000 });
    const run: Run = await client.waitForRun(created.id, { intervalMs: opts.intervalMs ?? 200, timeoutMs: opts.timeoutMs ?? 300_000, onProgress: (r) => progress.update(r), signal: io.signal });
    progress.finish(run);

    const rows = await collectResults(client, run.id);
    io.out('\n' + renderTable(rows, io.columns) + '\n' + summaryLines(run));
    // where `rehearsal serve` will listen with the same environment (PORT and HOST as it reads them)
    const port = Number(io.env.PORT) > 0 ? Number(io.env.PORT) : 3000;
    const host = io.env.HOST && io.env.HOST !== '0.0.0.0' && io.env.HOST !== '::' ? io.env.HOST : '127.0.0.1';
    const served = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    io.out([
      '',
      `Demo finished in ${((Date.now() - started) / 1000).toFixed(1)} s. ${judge ? 'The failures are' : 'With real models results vary; look for'} the sample agent's deliberate flaws: it handles`,
      'only the first request in a message, never hands a caller to a person, and reveals another patient\'s appointment when asked politely.',
      '',
      'Browse the results (transcripts, graded criteria with evidence):',
      `  npx rehearsal serve --data-dir ${dataDir}`,
      `  then open the dashboard at ${served}/ and sign in with the API key ${key}`,
      `  export R=${served}/api/v1 K=${key}`,
      `  curl -s -H "Authorization: Bearer $K" $R/runs/${run.test_run_id}/results     # API docs: ${served}/docs`,
      '',
    ].join('\n'));
    return run.status === 'completed' ? 0 : 2;
  } catch (err) {
    io.err(`rehearsal demo: ${describeError(err)}\n`);
    return 1;
  } finally {
    await svc?.stop();
    await agent?.close();
    await judge?.close();
  }
}
