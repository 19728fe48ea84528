import client from 'prom-client';
import { timingThread } from './http-thread.js';

/**
 * Operator metrics in the Prometheus format. One registry per process (not prom-client's global one),
 * so several apps in one test process do not collide.
 */
export interface Metrics {
  registry: client.Registry;
  providerReply: client.Histogram<'provider'>;
  providerErrors: client.Counter<'provider' | 'kind'>;
  scenarioOutcomes: client.Counter<'status'>;
  webhookDeliveries: client.Counter<'outcome'>;
  setInFlight(fn: () => number): void;
}

/** The part of the database the gauges read: they count rows at scrape time. */
export interface SqlReader {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/** The lag this process measures on its main thread (loop-lag.ts). */
export interface LagSource {
  recent(windowMs?: number): number;
  max(): number;
}

export function createMetrics(db: SqlReader, lag?: LagSource): Metrics {
  const registry = new client.Registry();
  if (lag) {
    // main: this process's event loop (API, database, grading); timing: the thread agent replies are timed on
    new client.Gauge({
      name: 'rehearsal_event_loop_lag_seconds', help: 'Largest event-loop lag in the last second (main thread); timing thread: its largest in the last reply', labelNames: ['thread'], registers: [registry],
      collect() {
        this.set({ thread: 'main' }, lag.recent(1000) / 1000);
        this.set({ thread: 'timing' }, timingThread.lastLagMs / 1000);
      },
    });
    new client.Gauge({
      name: 'rehearsal_event_loop_lag_max_seconds', help: 'Largest event-loop lag since the process started, by thread', labelNames: ['thread'], registers: [registry],
      collect() {
        this.set({ thread: 'main' }, lag.max() / 1000);
        this.set({ thread: 'timing' }, timingThread.maxLagMs / 1000);
      },
    });
  }
  client.collectDefaultMetrics({ register: registry, prefix: 'rehearsal_process_' });
  let inFlight = () => 0;
  new client.Gauge({
    name: 'rehearsal_runs', help: 'Runs by status (all organizations)', labelNames: ['status'], registers: [registry],
    async collect() {
      this.reset();
      const { rows } = await db.executeSql('select status, count(*)::int as n from runs group by status', []);
      for (const r of rows) this.set({ status: r.status }, r.n);
    },
  });
  new client.Gauge({
    name: 'rehearsal_queue_depth', help: 'Jobs waiting to be picked up, by queue', labelNames: ['queue'], registers: [registry],
    async collect() {
      this.reset();
      const { rows } = await db.executeSql(
        `select name, count(*)::int as n from pgboss.job where state in ('created', 'retry') and start_after <= now() group by name`, [],
      ).catch(() => ({ rows: [] as any[] }));
      for (const r of rows) this.set({ queue: r.name }, r.n);
    },
  });
  new client.Gauge({
    name: 'rehearsal_conversations_in_flight', help: 'Conversations this process is holding', registers: [registry],
    collect() { this.set(inFlight()); },
  });
  return {
    registry,
    providerReply: new client.Histogram({
      name: 'rehearsal_provider_reply_seconds', help: 'Time from a tester message to the agent reply', labelNames: ['provider'],
      buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32], registers: [registry],
    }),
    providerErrors: new client.Counter({ name: 'rehearsal_provider_errors_total', help: 'Conversations ended by a provider error', labelNames: ['provider', 'kind'], registers: [registry] }),
    scenarioOutcomes: new client.Counter({ name: 'rehearsal_scenario_runs_total', help: 'Finished scenario runs by outcome', labelNames: ['status'], registers: [registry] }),
    webhookDeliveries: new client.Counter({ name: 'rehearsal_webhook_deliveries_total', help: 'Webhook delivery attempts by outcome', labelNames: ['outcome'], registers: [registry] }),
    setInFlight: (fn) => { inFlight = fn; },
  };
}
