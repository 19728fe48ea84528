import type { Command } from 'commander';
import { runDemo } from './demo.js';
import { runGate, type GateOptions } from './gate.js';
import type { CliIo } from './io.js';
import { registerResourceCommands, withConnection } from './resources.js';
import { registerProjectCommands } from './project-commands.js';
import { registerGenerateCommand } from './generate.js';

// The commands that work through the typed client: demo, run (the CI gate) and the resource commands.
// Actions report an exit code through setExit instead of exiting, so tests can drive the real parser.

export const HELP_AFTER = `
Getting started:
  rehearsal demo                            the whole product offline, no keys: sample agent, 20 scenarios, graded results
  rehearsal serve                           run the API + worker (embedded database in ./.rehearsal)
  rehearsal keys create --org Acme          mint an API key (also while serve is running)

Against a running service (REHEARSAL_URL and REHEARSAL_API_KEY, or --url/--api-key):
  rehearsal agents list                     agents, suites, runs: list|show|cancel, all with --json
  rehearsal run --agent "Front desk" --min-pass-rate 80 --junit rehearsal.xml
                                            the CI gate: exit 0 met, 1 below threshold, 2 run failed/canceled/timed out, 3 usage/auth

Tests as code (a ./rehearsal folder: rehearsal.yaml, scenarios/*.yaml, suites/*.yaml):
  rehearsal validate                        check the files offline (file:line: field: message)
  rehearsal sync [--prune]                  upsert templates and suites on the service
  rehearsal test --summary summary.md       validate → sync → run → gate (--embedded: no service needed)

Docs: README.md, docs/ci.md (GitHub Actions), /docs on a running service.`;

export function registerClientCommands(program: Command, io: CliIo, setExit: (code: number) => void) {
  program.command('demo')
    .description('Run the demo: embedded service + sample agent + the 20 demo scenarios, then print the results (no keys, no database server)')
    .option('--data-dir <dir>', 'keep the demo data here (default: a fresh temporary directory)')
    .action(async (opts: { dataDir?: string }) => setExit(await runDemo({ dataDir: opts.dataDir }, io)));

  withConnection(program.command('run')
    .description('CI gate: start a run against a running service, wait, report, and exit by the pass rate')
    .option('--agent <id|name>', 'the agent to test (required)')
    .option('--suite <id|name>', 'test suite (default: the Default suite)')
    .option('--mode <mode>', 'demo (first 20 scenarios) or full (all)')
    .option('--max-scenarios <n>', 'cap the number of scenarios')
    .option('--max-turns <n>', 'turns per conversation, 1-50 (service default 4)')
    .option('--min-pass-rate <percent>', "minimum strict pass rate 0-100 for exit 0: passed / (passed + failed + the agent's own errors) (default 0)")
    .option('--min-coverage <percent>', "minimum share 0-100 of scenario runs graded or errored on the agent's side (default 90; 0 turns it off)")
    .option('--repeats <k>', 'run each scenario k times, 1-10 (default 1): the report shows attempts, flaky and broken scenarios')
    .option('--baseline <previous|id>', 'compare with this run (or the previous completed run of the same agent and suite)')
    .option('--fail-on-regression', 'exit 1 when the comparison with the baseline says regressed')
    .option('--junit <file>', 'write JUnit XML (one testcase per scenario run, plus one per regressed scenario)')
    .option('--json', 'print the final run with its results as JSON on stdout')
    .option('--timeout <seconds>', 'give up (and cancel the run) after this long (default 300)')
    .option('--poll-interval <seconds>', 'time between status polls (default 5)')
    .option('--name <name>', 'run name'))
    .addHelpText('after', "\nExit codes: 0 met · 1 the agent's outcomes are below --min-pass-rate, or regressed with --fail-on-regression · 2 run failed, canceled or timed out, or coverage below --min-coverage · 3 usage, configuration or authentication error (docs/ci.md)")
    .action(async (opts: GateOptions) => setExit(await runGate(opts, io)));

  registerProjectCommands(program, io, setExit);
  registerResourceCommands(program, io, setExit);
  registerGenerateCommand(program, io, setExit);
}
