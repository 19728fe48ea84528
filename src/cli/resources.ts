import fs from 'node:fs';
import type { Command } from 'commander';
import type { Agent, CreateAgentBody, RehearsalClient, Run } from '../client/index.js';
import { byIdOrName, connect, describeError, EXIT, isUsageProblem, parseIntOption, UsageError, type CliIo, type ConnectionOptions } from './io.js';
import { collectResults, renderTable, summaryLines } from './report.js';

// Everyday commands against a running service, all through the typed client:
// agents list|create|validate, suites list, runs list|show|cancel. Each has --json for scripts.

type Opts = ConnectionOptions & { json?: boolean };
type Action<O> = (client: RehearsalClient, opts: O, io: CliIo, args: string[]) => Promise<number | void>;

/** Wraps an action: connection from flags or env, errors to stderr, exit codes 0 / 1 / 3. */
export function clientAction<O extends Opts>(io: CliIo, setExit: (code: number) => void, name: string, fn: Action<O>) {
  return async (...params: unknown[]) => {
    const cmd = params[params.length - 1] as Command;
    const opts = cmd.opts() as O;
    const args = params.slice(0, -2).map(String);
    try {
      setExit((await fn(connect(opts, io), opts, io, args)) ?? EXIT.OK);
    } catch (err) {
      io.err(`rehearsal ${name}: ${describeError(err)}\n`);
      setExit(isUsageProblem(err) ? EXIT.USAGE : 1);
    }
  };
}

export const withConnection = (cmd: Command) =>
  cmd.option('--url <url>', 'service address (default: $REHEARSAL_URL)').option('--api-key <key>', 'API key (default: $REHEARSAL_API_KEY)');

const json = (io: CliIo, v: unknown) => io.out(JSON.stringify(v, null, 2) + '\n');
const cols = (rows: string[][]) => {
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(w[i]))).join('  ').trimEnd()).join('\n') + '\n';
};
const agentRow = (a: Agent) => [a.id, a.provider, a.is_active ? 'active' : 'inactive', a.name];
const runRow = (r: Run) => [r.test_run_id, r.status, `${r.pass_rate}%`, `${r.passed_count}/${r.failed_count}/${r.error_count}/${r.total_scenarios}`, r.started_at, r.name];

function readConfig(value: string): unknown {
  const text = value.startsWith('@') ? fs.readFileSync(value.slice(1), 'utf8') : value;
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError('--config must be a JSON object or @file.json');
  }
}

export function registerResourceCommands(program: Command, io: CliIo, setExit: (code: number) => void) {
  const act = <O extends Opts>(name: string, fn: Action<O>) => clientAction<O>(io, setExit, name, fn);

  const agents = program.command('agents').description('Agents under test (against a running service)');
  withConnection(agents.command('list').description('List agents').option('--provider <provider>', 'only this provider (provider_1 … provider_6)').option('--json', 'JSON output'))
    .action(act<Opts & { provider?: string }>('agents list', async (c, o) => {
      const list: Agent[] = [];
      for await (const a of c.agents.iterate(o.provider ? { provider: o.provider } : {})) list.push(a);
      if (o.json) return json(io, list);
      io.out(list.length ? cols([['ID', 'PROVIDER', 'STATE', 'NAME'], ...list.map(agentRow)]) : 'No agents yet: `rehearsal agents create --help`.\n');
    }));
  withConnection(agents.command('create').description('Register an agent')
    .requiredOption('--name <name>', 'display name (unique)')
    .requiredOption('--provider <provider>', 'provider_1 … provider_6 (provider_4 = any OpenAI-compatible endpoint)')
    .requiredOption('--config <json|@file>', "provider config as JSON, e.g. '{\"base_url\":\"http://127.0.0.1:8080/v1\",\"model\":\"desk\"}'")
    .option('--description <text>', 'description').option('--json', 'JSON output'))
    .action(act<Opts & { name: string; provider: string; config: string; description?: string }>('agents create', async (c, o) => {
      const body: CreateAgentBody = { name: o.name, provider: o.provider, config: readConfig(o.config), description: o.description };
      const a = await c.agents.create(body);
      if (o.json) return json(io, a);
      io.out(`Created agent ${a.id} (${a.name}, ${a.provider}; config fields: ${a.config_fields.join(', ') || 'none'})\n`);
    }));
  withConnection(agents.command('validate <agent>').description("Check an agent's credentials with its provider (exit 1 when invalid)").option('--json', 'JSON output'))
    .action(act<Opts>('agents validate', async (c, o, _io, [ref]) => {
      const a = await byIdOrName('agent', ref, (id) => c.agents.get(id), () => c.agents.iterate());
      const v = await c.agents.validate(a.id);
      if (o.json) json(io, { agent_id: a.id, ...v });
      else io.out(`${v.valid ? 'valid' : 'INVALID'}: ${v.message}${v.details.error_code ? ` (${String(v.details.error_code)})` : ''}\n`);
      return v.valid ? EXIT.OK : 1;
    }));

  const suites = program.command('suites').description('Test suites (against a running service)');
  withConnection(suites.command('list').description('List test suites').option('--json', 'JSON output'))
    .action(act<Opts>('suites list', async (c, o) => {
      const list = [];
      for await (const s of c.testSuites.iterate()) list.push(s);
      if (o.json) return json(io, list);
      io.out(cols([['ID', 'SCENARIOS', 'NAME'], ...list.map((s) => [s.id, String(s.scenario_count), `${s.name}${s.is_default ? ' (default)' : ''}`])]));
    }));

  const runs = program.command('runs').description('Test runs (against a running service)');
  withConnection(runs.command('list').description('List runs, newest first')
    .option('--status <status>', 'pending, running, grading, completed, failed or canceled')
    .option('--agent <id|name>', 'only runs of this agent').option('--limit <n>', 'at most this many (default 20)').option('--json', 'JSON output'))
    .action(act<Opts & { status?: string; agent?: string; limit?: string }>('runs list', async (c, o) => {
      const limit = parseIntOption(o.limit, '--limit', 1, 10_000) ?? 20;
      const agentId = o.agent ? (await byIdOrName('agent', o.agent, (id) => c.agents.get(id), () => c.agents.iterate())).id : undefined;
      const list: Run[] = [];
      for await (const r of c.runs.iterate({ status: o.status, agent_id: agentId })) {
        list.push(r);
        if (list.length >= limit) break;
      }
      if (o.json) return json(io, list);
      io.out(list.length ? cols([['RUN', 'STATUS', 'PASS', 'P/F/E/TOTAL', 'STARTED', 'NAME'], ...list.map(runRow)]) : 'No runs yet.\n');
    }));
  withConnection(runs.command('show <run>').description('A run with its scenario results (UUID or TR-<n>)').option('--json', 'JSON output'))
    .action(act<Opts>('runs show', async (c, o, _io, [id]) => {
      const run = await c.runs.get(id);
      const rows = await collectResults(c, run.id);
      if (o.json) return json(io, { ...run, results: rows });
      io.out(`${run.test_run_id} · ${run.name} · ${run.status}\n\n${renderTable(rows, io.columns)}\n${summaryLines(run)}`);
    }));
  withConnection(runs.command('cancel <run>').description('Cancel a pending, running or grading run').option('--json', 'JSON output'))
    .action(act<Opts>('runs cancel', async (c, o, _io, [id]) => {
      const run = await c.runs.cancel(id);
      if (o.json) return json(io, run);
      io.out(`${run.test_run_id} is ${run.status} (${run.passed_count} passed, ${run.failed_count} failed, ${run.error_count} errors of ${run.total_scenarios})\n`);
    }));
}
