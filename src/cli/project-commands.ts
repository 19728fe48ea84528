import type { Command } from 'commander';
import { RehearsalError } from '../client/index.js';
import { loadProject, type Project } from '../files/project.js';
import { formatProblem } from '../files/yaml-problems.js';
import { startEmbedded, type Embedded } from './embedded.js';
import { plan as gatePlan, runGate, type GateOptions } from './gate.js';
import { byIdOrName, connect, describeError, EXIT, isUsageProblem, UsageError, type CliIo, type ConnectionOptions } from './io.js';
import { printPlan, type RunPlan } from './plan.js';
import { withConnection } from './resources.js';
import { syncLines, syncProject } from './sync.js';

// Tests as code: `validate`, `sync` and `test` over a project folder (default ./rehearsal).

type DirOpts = { dir?: string };
export interface TestOptions extends GateOptions, DirOpts {
  testMode?: string; repeats?: string; baseline?: string; minCoverage?: string; failOnRegression?: boolean; dryRun?: boolean; embedded?: boolean;
}

/** Loads and reports; null (after printing every problem) when the folder has any. */
function loadOrReport(dir: string | undefined, io: CliIo, name: string): Project | null {
  const project = loadProject(dir ?? 'rehearsal', io.env);
  if (project.problems.length === 0) return project;
  io.err(project.problems.map(formatProblem).join('\n') + '\n');
  io.err(`${name}: ${project.problems.length} problem(s); nothing was synced or run\n`);
  return null;
}

const unreachable = (err: unknown) => err instanceof RehearsalError && (err.code === 'NETWORK_ERROR' || err.status >= 500);

export async function runValidate(opts: DirOpts, io: CliIo): Promise<number> {
  const project = loadOrReport(opts.dir, io, 'rehearsal validate');
  if (!project) return EXIT.USAGE;
  io.out(`OK: ${project.scenarios.length} scenario file(s), ${project.suites.length} suite file(s)${project.agent ? ', an inline agent' : ''} in ${project.dir}\n`);
  return EXIT.OK;
}

export async function runSync(opts: DirOpts & ConnectionOptions & { prune?: boolean }, io: CliIo): Promise<number> {
  const project = loadOrReport(opts.dir, io, 'rehearsal sync');
  if (!project) return EXIT.USAGE;
  try {
    const client = connect(opts, io);
    io.out(syncLines(await syncProject(client, project, { prune: Boolean(opts.prune), signal: io.signal })));
    return EXIT.OK;
  } catch (err) {
    io.err(`rehearsal sync: ${describeError(err)}\n`);
    return unreachable(err) ? EXIT.RUN_FAILED : isUsageProblem(err) ? EXIT.USAGE : 1;
  }
}

export async function runTest(opts: TestOptions, io: CliIo): Promise<number> {
  const project = loadOrReport(opts.dir, io, 'rehearsal test');
  if (!project) return EXIT.USAGE;
  const d = project.defaults;
  let embedded: Embedded | null = null;
  try {
    if (opts.embedded) {
      embedded = await startEmbedded(io.env);
      opts = { ...opts, url: embedded.url, apiKey: embedded.apiKey };
    }
    const client = connect(opts, io);
    const synced = await syncProject(client, project, { prune: false, signal: io.signal });
    io.err(syncLines(synced));
    const agent = opts.agent ?? (typeof d.agent === 'object' ? synced.agent!.id : d.agent);
    if (!agent) throw new UsageError('no agent: pass --agent or set agent in rehearsal.yaml');
    const suiteRef = opts.suite ?? d.suite;
    const suite = suiteRef ? (synced.suiteIds.get(suiteRef.trim().toLowerCase()) ?? suiteRef) : undefined;
    const gate: GateOptions = {
      ...opts, command: 'test', agent, suite, mode: opts.testMode ?? d.test_mode,
      maxScenarios: opts.maxScenarios ?? d.max_scenarios?.toString(), maxTurns: opts.maxTurns ?? d.max_turns?.toString(),
      minPassRate: opts.minPassRate ?? d.min_pass_rate?.toString(), minCoverage: opts.minCoverage ?? d.min_coverage?.toString(),
      repeats: opts.repeats ?? d.repeats?.toString(), baseline: opts.baseline ?? d.baseline,
      failOnRegression: opts.failOnRegression ?? d.fail_on_regression,
    };
    if (opts.dryRun) return await dryRun(client, gate, io);
    return await runGate(gate, io);
  } catch (err) {
    io.err(`rehearsal test: ${describeError(err)}\n`);
    return unreachable(err) ? EXIT.RUN_FAILED : isUsageProblem(err) ? EXIT.USAGE : EXIT.RUN_FAILED;
  } finally {
    await embedded?.stop();
  }
}

/** The plan instead of a run: the same flags and the same validation as the run `test` would start. */
async function dryRun(client: ReturnType<typeof connect>, g: GateOptions, io: CliIo): Promise<number> {
  const p = gatePlan(g);
  const agent = await byIdOrName('agent', g.agent!, (id) => client.agents.get(id), () => client.agents.iterate());
  const suite = g.suite ? await byIdOrName('test suite', g.suite, (id) => client.testSuites.get(id), () => client.testSuites.iterate()) : null;
  const plan = await client.runs.plan({ agent_id: agent.id, test_suite_id: suite?.id, ...p.body }, { signal: io.signal }) as RunPlan;
  if (g.json) io.out(JSON.stringify(plan, null, 2) + '\n');
  else io.out(printPlan(plan));
  return EXIT.OK;
}

export function registerProjectCommands(program: Command, io: CliIo, setExit: (code: number) => void) {
  const dir = (c: Command) => c.option('--dir <dir>', 'the project folder (default ./rehearsal)');
  dir(program.command('validate').description('Check rehearsal.yaml, scenarios/*.yaml and suites/*.yaml offline; one line per problem (exit 0 / 3)'))
    .action(async (o: DirOpts) => setExit(await runValidate(o, io)));
  withConnection(dir(program.command('sync').description('Upsert the folder\'s templates (by slug) and suites (by name) on a running service')
    .option('--prune', 'delete templates and suites made by sync that no file names any more')))
    .action(async (o: DirOpts & ConnectionOptions & { prune?: boolean }) => setExit(await runSync(o, io)));
  withConnection(dir(program.command('test').description('validate → sync → run → wait → report → gate, with rehearsal.yaml as defaults')
    .option('--agent <id|name>', 'the agent (default: rehearsal.yaml agent)')
    .option('--suite <id|name>', 'a suite file\'s name, a suite on the service, or its id')
    .option('--test-mode <mode>', 'demo (first 20 scenarios) or full')
    .option('--max-scenarios <n>', 'cap the number of scenarios')
    .option('--max-turns <n>', 'turns per conversation, 1-50')
    .option('--repeats <n>', 'repetitions per scenario, 1-10 (default 1)')
    .option('--baseline <previous|id>', 'compare with this run, or the previous completed run of the same agent and suite')
    .option('--fail-on-regression', 'exit 1 when the comparison with the baseline says regressed')
    .option('--min-pass-rate <percent>', 'minimum pass rate 0-100 for exit 0')
    .option('--min-coverage <percent>', 'minimum coverage 0-100 for exit 0 (default 90; 0 turns it off)')
    .option('--junit <file>', 'write JUnit XML (one testcase per scenario run)')
    .option('--summary <file.md>', 'write a Markdown report (e.g. $GITHUB_STEP_SUMMARY)')
    .option('--json', 'print the final run with its results (or, with --dry-run, the plan) as JSON on stdout')
    .option('--dry-run', 'validate and sync, then print the plan and the cost estimate instead of running')
    .option('--embedded', 'no running service: an in-process one in a temporary data dir')
    .option('--timeout <seconds>', 'give up (and cancel the run) after this long (default 300)')
    .option('--poll-interval <seconds>', 'time between status polls (default 5)')
    .option('--name <name>', 'run name (e.g. "main · <sha>", to find it later)')))
    .addHelpText('after', '\nExit codes: 0 met · 1 below --min-pass-rate · 2 run failed, canceled, timed out or service unreachable · 3 invalid files, usage, configuration or authentication')
    .action(async (o: TestOptions) => setExit(await runTest(o, io)));
}
