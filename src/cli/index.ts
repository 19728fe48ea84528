#!/usr/bin/env node
import { createRequire } from 'node:module';
import { Command, type CommanderError } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/lock.js';
import { systemClock } from '../lib/clock.js';
import { openRuntime } from '../runtime.js';
import { startService } from '../server.js';
import { registerClientCommands, HELP_AFTER } from './commands.js';
import { handleControl, sendControl, type ControlRequest } from '../control.js';
import { EXIT, processIo } from './io.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

const program = new Command();
program
  .name('rehearsal')
  .description('Test conversational AI agents with simulated callers and auditable judges.\n' +
    'Configuration comes from environment variables (see the README); without DATABASE_URL data lives in ./.rehearsal.')
  .version(version)
  .showHelpAfterError()
  .addHelpText('after', HELP_AFTER)
  // usage errors (unknown option, missing argument) exit 3 like every other usage problem; help exits 0
  .exitOverride((err: CommanderError) => {
    const ok = ['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(err.code);
    process.exit(ok ? 0 : EXIT.USAGE);
  });

function fail(err: unknown): never {
  const msg = err instanceof ConfigError || err instanceof DataDirLockedError ? err.message : (err as Error)?.message ?? String(err);
  process.stderr.write(`rehearsal: ${msg}\n`);
  process.exit(err instanceof ConfigError ? 3 : 1);
}

function onSignals(stop: () => Promise<void>) {
  let stopping = false;
  const handler = (sig: string) => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write(`${sig} received: shutting down\n`);
    stop().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', () => handler('SIGINT'));
  process.on('SIGTERM', () => handler('SIGTERM'));
}

program.command('serve')
  .description('Run the API (and, unless --no-worker, the worker that executes runs)')
  .option('--no-worker', 'API only: workers run as separate `rehearsal worker` processes (scaled mode)')
  .option('--data-dir <dir>', 'embedded data directory (overrides REHEARSAL_DATA_DIR), e.g. the one `rehearsal demo` printed')
  .option('--port <port>', 'HTTP port (overrides PORT)')
  .action(async (opts: { worker: boolean; dataDir?: string; port?: string }) => {
    try {
      const config = loadConfig({ ...process.env, ...(opts.dataDir ? { REHEARSAL_DATA_DIR: opts.dataDir } : {}), ...(opts.port ? { PORT: opts.port } : {}) });
      if (!opts.worker && !config.databaseUrl) throw new ConfigError('--no-worker needs DATABASE_URL: the embedded database serves one process');
      const svc = await startService(config, { api: true, worker: opts.worker });
      onSignals(svc.stop);
    } catch (err) { fail(err); }
  });

program.command('worker')
  .description('Run a worker process (scaled mode: needs DATABASE_URL)')
  .option('--metrics-port <port>', 'serve /healthz, /readyz and /metrics on this port (0 = any free port)')
  .action(async (opts: { metricsPort?: string }) => {
    try {
      const config = loadConfig();
      if (!config.databaseUrl) throw new ConfigError('rehearsal worker needs DATABASE_URL; in embedded mode `rehearsal serve` runs the worker itself');
      const port = opts.metricsPort === undefined ? undefined : Number(opts.metricsPort);
      if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new ConfigError('--metrics-port must be a port number');
      const svc = await startService(config, { api: false, worker: true, opsPort: port });
      onSignals(svc.stop);
    } catch (err) { fail(err); }
  });

program.command('migrate')
  .description('Apply database migrations and load the built-in scenario library, then exit')
  .action(async () => {
    try {
      const rt = await openRuntime(loadConfig());
      process.stdout.write(`Migrated ${rt.describeDb}\n`);
      await rt.close();
    } catch (err) { fail(err); }
  });

/** Embedded: ask the running server through its control socket, else open the data dir ourselves. */
async function control(req: ControlRequest): Promise<any> {
  const config = loadConfig();
  if (!config.databaseUrl) {
    const answer = await sendControl(config.dataDir, req);
    if (answer) {
      if (!answer.ok) throw new Error(answer.error);
      return answer.result;
    }
  }
  const rt = await openRuntime(config, { poolSize: 2 });
  try {
    return await handleControl({ db: rt.db, clock: systemClock }, req);
  } finally {
    await rt.close();
  }
}

const keys = program.command('keys').description('Manage API keys');
keys.command('create')
  .description('Create an API key (and the organization, if it does not exist yet)')
  .requiredOption('--org <name>', 'organization name')
  .option('--name <label>', 'a label for the key', 'cli')
  .option('--expires-at <iso>', 'expiration date (ISO-8601, in the future)')
  .option('--json', 'print {organization_id, api_key_id, key} as JSON')
  .action(async (opts: { org: string; name: string; expiresAt?: string; json?: boolean }) => {
    try {
      const r = await control({ cmd: 'keys.create', org: opts.org, name: opts.name, expires_at: opts.expiresAt ?? null });
      if (opts.json) {
        process.stdout.write(JSON.stringify({ organization_id: r.organization_id, api_key_id: r.api_key_id, key: r.key }) + '\n');
      } else {
        process.stdout.write(`Organization: ${r.organization_name} (${r.organization_id})\nAPI key (shown once, store it now):\n  ${r.key}\n`);
      }
    } catch (err) { fail(err); }
  });

const orgs = program.command('orgs').description('Organizations');
orgs.command('list')
  .description('List organizations')
  .option('--json', 'JSON output')
  .action(async (opts: { json?: boolean }) => {
    try {
      const list: Array<{ id: string; name: string; created_at: string }> = await control({ cmd: 'orgs.list' });
      if (opts.json) process.stdout.write(JSON.stringify(list) + '\n');
      else for (const o of list) process.stdout.write(`${o.id}  ${o.name}  (created ${o.created_at})\n`);
    } catch (err) { fail(err); }
  });

// demo and run stop cleanly on Ctrl-C (the run cancels its run); a second Ctrl-C exits at once
const interrupt = new AbortController();
program.hook('preAction', (_root, action) => {
  if (!['demo', 'run', 'test'].includes(action.name())) return;
  const onSignal = () => (interrupt.signal.aborted ? process.exit(130) : interrupt.abort());
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
});
let exitCode: number | null = null;
registerClientCommands(program, processIo(interrupt.signal), (code) => { exitCode = code; });

program.parseAsync()
  .then(() => {
    // client commands are done when their action returns; serve and worker keep running
    if (exitCode !== null) process.exit(exitCode);
  })
  .catch(fail);
