import fs from 'node:fs';
import path from 'node:path';
import { RehearsalError, RehearsalTimeoutError, type Run } from '../client/index.js';
import { byIdOrName, connect, describeError, EXIT, isUsageProblem, parseIntOption, parseSeconds, UsageError, type CliIo, type ConnectionOptions } from './io.js';
import { junitXml } from './junit.js';
import { createProgress } from './progress.js';
import { collectResults, renderTable, summaryLines, type ResultRow } from './report.js';

// `rehearsal run`: the CI gate. Starts a run on a running service, waits for it, writes JUnit/JSON and
// exits 0 when the pass rate meets --min-pass-rate, 1 when it does not, 2 when the run failed, was canceled
// or timed out, 3 for usage, configuration or authentication problems.

export interface GateOptions extends ConnectionOptions {
  agent?: string;
  suite?: string;
  mode?: string;
  maxScenarios?: string;
  maxTurns?: string;
  minPassRate?: string;
  junit?: string;
  json?: boolean;
  timeout?: string;
  pollInterval?: string;
  name?: string;
}

interface Plan {
  minPassRate: number;
  timeoutMs: number;
  intervalMs: number;
  body: { test_mode?: 'demo' | 'full'; max_scenarios?: number; max_turns?: number; name?: string };
}

function plan(opts: GateOptions): Plan {
  if (!opts.agent) throw new UsageError('--agent <id|name> is required');
  if (opts.mode !== undefined && opts.mode !== 'demo' && opts.mode !== 'full') throw new UsageError(`--mode must be demo or full (got ${JSON.stringify(opts.mode)})`);
  const minPassRate = opts.minPassRate === undefined ? 0 : Number(opts.minPassRate);
  if (!Number.isFinite(minPassRate) || minPassRate < 0 || minPassRate > 100) throw new UsageError(`--min-pass-rate must be a number from 0 to 100 (got ${JSON.stringify(opts.minPassRate)})`);
  return {
    minPassRate,
    timeoutMs: parseSeconds(opts.timeout, '--timeout', 300) * 1000,
    intervalMs: parseSeconds(opts.pollInterval, '--poll-interval', 5) * 1000,
    body: {
      test_mode: opts.mode as Plan['body']['test_mode'],
      max_scenarios: parseIntOption(opts.maxScenarios, '--max-scenarios', 1, 100_000),
      max_turns: parseIntOption(opts.maxTurns, '--max-turns', 1, 50),
      name: opts.name,
    },
  };
}

function writeArtifact(file: string, content: string) {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, content);
}

export async function runGate(opts: GateOptions, io: CliIo): Promise<number> {
  let p: Plan;
  let client;
  try {
    p = plan(opts);
    client = connect(opts, io);
  } catch (err) {
    io.err(`rehearsal run: ${describeError(err)}\n`);
    return EXIT.USAGE;
  }

  let run: Run;
  let suiteName = 'default';
  try {
    const agent = await byIdOrName('agent', opts.agent!, (id) => client.agents.get(id), () => client.agents.iterate());
    let suiteId: string | undefined;
    if (opts.suite) {
      const suite = await byIdOrName('test suite', opts.suite, (id) => client.testSuites.get(id), () => client.testSuites.iterate());
      suiteId = suite.id;
      suiteName = suite.name;
    }
    const created = await client.runs.create({ agent_id: agent.id, test_suite_id: suiteId, ...p.body }, { signal: io.signal });
    io.err(`Started ${created.test_run_id}: ${created.total_scenarios} scenarios against "${agent.name}" (polling every ${p.intervalMs / 1000} s, up to ${p.timeoutMs / 1000} s)\n`);
    const progress = createProgress(io, { minIntervalMs: Math.max(p.intervalMs, 5000) });
    try {
      run = await client.waitForRun(created.id, { intervalMs: p.intervalMs, timeoutMs: p.timeoutMs, onProgress: (r) => progress.update(r), signal: io.signal });
    } catch (err) {
      if (!(err instanceof RehearsalTimeoutError) && !(err instanceof RehearsalError && err.code === 'ABORTED')) throw err;
      // A gate that gives up should not leave the run holding one of the organization's concurrent-run slots.
      const why = err instanceof RehearsalTimeoutError ? `timed out after ${p.timeoutMs / 1000} s` : 'interrupted';
      io.err(`\n${created.test_run_id} ${why}; canceling it\n`);
      run = await client.runs.cancel(created.id).catch(() => client.runs.get(created.id));
    }
    progress.finish(run);
  } catch (err) {
    io.err(`rehearsal run: ${describeError(err)}\n`);
    return isUsageProblem(err) ? EXIT.USAGE : EXIT.RUN_FAILED;
  }

  let rows: ResultRow[] = [];
  try {
    rows = await collectResults(client, run.id);
  } catch (err) {
    io.err(`rehearsal run: could not fetch the results: ${describeError(err)}\n`);
  }

  const met = run.status === 'completed' && run.pass_rate >= p.minPassRate;
  const code = run.status !== 'completed' ? EXIT.RUN_FAILED : met ? EXIT.OK : EXIT.BELOW_THRESHOLD;
  const verdict = run.status !== 'completed'
    ? `FAILED: run ${run.test_run_id} ended ${run.status}${run.error_message ? ` (${run.error_message})` : ''}`
    : met ? `PASSED: pass rate ${run.pass_rate}% meets the minimum of ${p.minPassRate}%` : `FAILED: pass rate ${run.pass_rate}% is below the minimum of ${p.minPassRate}%`;

  if (opts.junit) {
    try {
      writeArtifact(opts.junit, junitXml(run, rows, suiteName));
    } catch (err) {
      io.err(`rehearsal run: cannot write ${opts.junit}: ${(err as Error).message}\n`);
      return EXIT.USAGE;
    }
  }
  if (opts.json) {
    io.out(JSON.stringify({ ...run, results: rows, gate: { min_pass_rate: p.minPassRate, passed: met, exit_code: code } }, null, 2) + '\n');
    io.err(`${verdict}\n`);
  } else {
    io.out('\n' + renderTable(rows, io.columns) + '\n' + summaryLines(run) + `${verdict}\n`);
  }
  return code;
}
