import fs from 'node:fs';
import path from 'node:path';
import { RehearsalError, RehearsalTimeoutError, type Run } from '../client/index.js';
import { byIdOrName, connect, describeError, EXIT, isUsageProblem, parseIntOption, parseSeconds, UsageError, type CliIo, type ConnectionOptions } from './io.js';
import { junitXml } from './junit.js';
import { attemptLines, collectExtras, comparisonLines, intervalLine, type Extras } from './comparison-report.js';
import { createProgress } from './progress.js';
import { collectResults, renderTable, summaryLines, type ResultRow } from './report.js';
import { decideGate, type GateRun } from './gate-decision.js';
import { summaryMarkdown } from './summary.js';

// `rehearsal run`: the CI gate. Starts a run on a running service, waits for it, writes JUnit/JSON and exits
// as gate-decision.ts decides: 1 for what the agent caused, 2 when the run could not say (failed, canceled,
// timed out, too little covered), 3 for usage, configuration or authentication problems.

export interface GateOptions extends ConnectionOptions {
  agent?: string;
  suite?: string;
  mode?: string;
  maxScenarios?: string;
  maxTurns?: string;
  minPassRate?: string;
  minCoverage?: string;
  junit?: string;
  json?: boolean;
  timeout?: string;
  pollInterval?: string;
  name?: string;
  /** Markdown report for a pull request or $GITHUB_STEP_SUMMARY (`rehearsal test --summary`). */
  summary?: string;
  /** The command named in messages (`run` or `test`). */
  command?: string;
  repeats?: string;
  /** `previous` or a run id to compare with. */
  baseline?: string;
  /** Exit 1 when the comparison with the baseline says `regressed`. */
  failOnRegression?: boolean;
}

export interface Plan {
  minPassRate: number;
  minCoverage: number;
  timeoutMs: number;
  intervalMs: number;
  failOnRegression: boolean;
  body: { test_mode?: 'demo' | 'full'; max_scenarios?: number; max_turns?: number; name?: string; repeats?: number; baseline?: string };
}

/** The gate's flags checked and turned into the run's body and thresholds (usage errors are UsageError, exit 3). */
export function plan(opts: GateOptions): Plan {
  if (!opts.agent) throw new UsageError('--agent <id|name> is required');
  if (opts.mode !== undefined && opts.mode !== 'demo' && opts.mode !== 'full') throw new UsageError(`${opts.command === 'test' ? '--test-mode' : '--mode'} must be demo or full (got ${JSON.stringify(opts.mode)})`);
  const minPassRate = opts.minPassRate === undefined ? 0 : Number(opts.minPassRate);
  if (!Number.isFinite(minPassRate) || minPassRate < 0 || minPassRate > 100) throw new UsageError(`--min-pass-rate must be a number from 0 to 100 (got ${JSON.stringify(opts.minPassRate)})`);
  const minCoverage = opts.minCoverage === undefined ? DEFAULT_MIN_COVERAGE : Number(opts.minCoverage);
  if (opts.minCoverage?.trim() === '' || !Number.isFinite(minCoverage) || minCoverage < 0 || minCoverage > 100) {
    throw new UsageError(`--min-coverage must be a number from 0 to 100 (got ${JSON.stringify(opts.minCoverage)})`);
  }
  if (opts.baseline !== undefined && !opts.baseline.trim()) throw new UsageError('--baseline must be "previous" or a run id');
  if (opts.failOnRegression && opts.baseline === undefined) throw new UsageError('--fail-on-regression needs --baseline <previous|run id> to compare with');
  return {
    minPassRate,
    minCoverage,
    failOnRegression: Boolean(opts.failOnRegression),
    timeoutMs: parseSeconds(opts.timeout, '--timeout', 300) * 1000,
    intervalMs: parseSeconds(opts.pollInterval, '--poll-interval', 5) * 1000,
    body: {
      test_mode: opts.mode as Plan['body']['test_mode'],
      max_scenarios: parseIntOption(opts.maxScenarios, '--max-scenarios', 1, 100_000),
      max_turns: parseIntOption(opts.maxTurns, '--max-turns', 1, 50),
      name: opts.name,
      repeats: parseIntOption(opts.repeats, '--repeats', 1, 10),
      baseline: opts.baseline?.trim(),
    },
  };
}

export const DEFAULT_MIN_COVERAGE = 90;

function writeArtifact(file: string, content: string) {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, content);
}

export async function runGate(opts: GateOptions, io: CliIo): Promise<number> {
  const name = `rehearsal ${opts.command ?? 'run'}`;
  let p: Plan;
  let client: ReturnType<typeof connect>;
  try {
    p = plan(opts);
    client = connect(opts, io);
  } catch (err) {
    io.err(`${name}: ${describeError(err)}\n`);
    return EXIT.USAGE;
  }

  let run: Run;
  let timedOut = false;
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
    for (const w of created.warnings) io.err(`warning: ${w}\n`);
    const progress = createProgress(io, { minIntervalMs: Math.max(p.intervalMs, 5000) });
    try {
      run = await client.waitForRun(created.id, { intervalMs: p.intervalMs, timeoutMs: p.timeoutMs, onProgress: (r) => progress.update(r), signal: io.signal });
    } catch (err) {
      if (!(err instanceof RehearsalTimeoutError) && !(err instanceof RehearsalError && err.code === 'ABORTED')) throw err;
      // A gate that gives up should not leave the run holding one of the organization's concurrent-run slots.
      timedOut = err instanceof RehearsalTimeoutError;
      const why = timedOut ? `timed out after ${p.timeoutMs / 1000} s` : 'interrupted';
      io.err(`\n${created.test_run_id} ${why}; canceling it\n`);
      run = await client.runs.cancel(created.id).catch(() => client.runs.get(created.id));
    }
    progress.finish(run);
  } catch (err) {
    io.err(`${name}: ${describeError(err)}\n`);
    return isUsageProblem(err) ? EXIT.USAGE : EXIT.RUN_FAILED;
  }

  let rows: ResultRow[] = [];
  try {
    rows = await collectResults(client, run.id);
  } catch (err) {
    io.err(`${name}: could not fetch the results: ${describeError(err)}\n`);
  }

  let extras: Extras = { aggregates: [], comparison: null };
  try {
    extras = await collectExtras(client, run, io.signal);
  } catch (err) {
    io.err(`${name}: could not fetch the comparison: ${describeError(err)}\n`);
    // a gate asked to fail on regression cannot pass without knowing
    if (p.failOnRegression) return EXIT.RUN_FAILED;
  }
  const { comparison } = extras;

  // the strict figures are read by name: the run carries them once the service computes them
  const decision = decideGate(run as GateRun, rows, {
    minPassRate: p.minPassRate, minCoverage: p.minCoverage, timedOut,
    regressed: p.failOnRegression && comparison?.verdict === 'regressed' ? comparison.scenarios.filter((s) => s.change === 'regressed').map((s) => s.scenario_name) : null,
  });
  const code = decision.exit_code;
  const verdict = decision.message;

  if (opts.junit) {
    try {
      writeArtifact(opts.junit, junitXml(run, rows, suiteName, comparison));
    } catch (err) {
      io.err(`${name}: cannot write ${opts.junit}: ${(err as Error).message}\n`);
      return EXIT.USAGE;
    }
  }
  if (opts.summary) {
    try {
      writeArtifact(opts.summary, summaryMarkdown(run, rows, { serviceUrl: opts.url ?? io.env.REHEARSAL_URL ?? null, verdict, comparison: comparison ? comparisonLines(comparison, baselineName(comparison)) : null }));
    } catch (err) {
      io.err(`${name}: cannot write ${opts.summary}: ${(err as Error).message}\n`);
      return EXIT.USAGE;
    }
  }
  if (opts.json) {
    const gate = {
      min_pass_rate: p.minPassRate, min_coverage: p.minCoverage, strict_pass_rate: decision.strict_pass_rate, coverage: decision.coverage,
      passed: decision.passed, reason: decision.reason, exit_code: code, fail_on_regression: p.failOnRegression,
    };
    io.out(JSON.stringify({ ...run, results: rows, ...(run.repeats > 1 ? { scenarios: extras.aggregates } : {}), comparison, gate }, null, 2) + '\n');
    io.err(`${verdict}\n`);
  } else {
    const statuses = (id: string) => rows.filter((r) => r.scenario_id === id).map((r) => r.status);
    const repeated = run.repeats > 1 ? '\n' + attemptLines(extras.aggregates, statuses) : '';
    const compared = comparison ? '\n' + comparisonLines(comparison, baselineName(comparison)) : '';
    io.out('\n' + renderTable(rows, io.columns) + repeated + '\n' + summaryLines(run) + intervalLine(run.stats.pass_rate_ci, run.stats, run.scenario_count) + compared + `${verdict}\n`);
  }
  return code;
}

const baselineName = (c: { baseline_run_id: string }) => `baseline ${c.baseline_run_id}`;
