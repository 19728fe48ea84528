import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { startControlServer } from './control.js';
import type { Config } from './config.js';
import type { Deps } from './deps.js';
import { systemClock } from './lib/clock.js';
import { createApiKey } from './modules/api-keys/api-keys.service.js';
import { countOrganizations, findOrCreateOrganization } from './modules/organizations/organizations.service.js';
import { openRuntime } from './runtime.js';
import { createAdapters } from './providers/registry.js';
import { createJobQueue } from './jobs/queue.js';
import { LocalRuns } from './modules/runs/local-runs.js';
import { createRunWorker, type RunWorkerOptions } from './modules/runs/worker.js';
import { withRunPorts } from './run-ports.js';
import { createDeliveryWorker } from './modules/webhooks/delivery-worker.js';
import { createScheduleEngine } from './modules/schedules/schedule-engine.js';
import pino from 'pino';
import Fastify from 'fastify';
import { registerOps } from './http/ops.js';
import { createMetrics } from './lib/metrics.js';
import { LoopLagMonitor } from './lib/loop-lag.js';

export interface Service {
  app: FastifyInstance | null;
  deps: Deps;
  url: string | null;
  stop(): Promise<void>;
}

type Print = (line: string) => void;


/** Boots the API (and, unless told otherwise, the worker) on the configured database. */
export async function startService(config: Config, opts: { api: boolean; worker: boolean; print?: Print; engine?: Partial<RunWorkerOptions>; opsPort?: number }): Promise<Service> {
  const print = opts.print ?? ((l) => process.stdout.write(l + '\n'));
  const rt = await openRuntime(config);
  let draining = false;
  const stops: Array<() => Promise<void>> = [];
  const log = pino({ level: config.logLevel });
  const queue = createJobQueue(rt.db, { supervise: opts.worker, onError: (err) => log.error({ err }, 'job queue error') });
  const local = new LocalRuns();
  // started before anything runs, so every conversation's window is covered
  const lag = new LoopLagMonitor().start();
  stops.push(async () => lag.stop());
  const deps = withRunPorts({ config, db: rt.db, clock: systemClock, box: rt.box, adapters: createAdapters(), metrics: createMetrics(rt.db, lag), lag }, queue, local);

  let app: FastifyInstance | null = null;
  let url: string | null = null;
  try {
    await queue.start();
    stops.push(() => queue.stop());
    if (opts.worker) {
      const worker = createRunWorker(deps, queue, local, log, opts.engine);
      worker.start();
      stops.push(() => worker.stop());
      const deliveryWorker = createDeliveryWorker(deps, queue, log);
      deliveryWorker.startWorker();
      stops.push(() => deliveryWorker.stop());
      const scheduleEngine = createScheduleEngine(deps, queue, log);
      scheduleEngine.startWorker();
      stops.push(() => scheduleEngine.stop());
    }
    if (opts.api) {
      if ((await countOrganizations(rt.db)) === 0) {
        const { org } = await findOrCreateOrganization(rt.db, 'default', new Date());
        const k = await createApiKey(deps, { orgId: org.id }, { name: 'first key' });
        print('First start: created the organization "default" and this API key (it will not be shown again):');
        print(`  ${k.key}`);
      }
      app = await buildApp(deps, { logger: { level: config.logLevel } });
      registerOps(app, rt.db, deps.metrics, () => draining);
      await app.listen({ port: config.port, host: config.host });
      const addr = app.server.address();
      const port = typeof addr === 'object' && addr ? addr.port : config.port;
      url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
      stops.push(() => app!.close());
      print(`Rehearsal API listening on ${url}/api/v1 (docs: ${url}/docs)`);
      print(`Dashboard: ${url}/ (sign in with an API key: the one printed at first start, or one from \`rehearsal keys create\`)`);
    }
    if (!opts.api && opts.opsPort !== undefined) {
      // a worker has no API; it still answers health, readiness and metrics for its supervisor
      const ops = Fastify({ logger: false });
      registerOps(ops, rt.db, deps.metrics, () => draining);
      await ops.listen({ port: opts.opsPort, host: config.host });
      stops.push(() => ops.close());
      const a = ops.server.address();
      print(`Worker health and metrics on http://${config.host}:${typeof a === 'object' && a ? a.port : opts.opsPort}/metrics`);
    }
    print(`Database: ${rt.describeDb}`);
    print(opts.worker ? `Worker: running (up to ${config.workerConcurrency} conversations, ${config.scenarioConcurrency} per run)` : 'Worker: off (run `rehearsal worker` processes)');
    if (!config.databaseUrl) {
      stops.push(await startControlServer(config.dataDir, deps));
      print('Create an API key: rehearsal keys create --org <name>   (npx rehearsal … from a checkout)');
    } else {
      print('Create an API key: DATABASE_URL=… REHEARSAL_SECRET_KEY=… rehearsal keys create --org <name>');
    }
  } catch (err) {
    for (const s of stops.reverse()) await s().catch(() => {});
    await rt.close();
    throw err;
  }

  let stopped = false;
  return {
    app, deps, url,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      draining = true;
      for (const s of stops.reverse()) await s().catch(() => {});
      await rt.close();
    },
  };
}
