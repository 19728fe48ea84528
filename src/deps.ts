import type { Config } from './config.js';
import type { Database, Tx } from './db/client.js';
import type { Clock } from './lib/clock.js';
import type { SecretBox } from './lib/secret-box.js';
import type { Metrics } from './lib/metrics.js';
import type { LagProbe } from './lib/loop-lag.js';
import type { ProviderAdapter, ProviderId } from './engine/provider.js';

/**
 * The run ports, built before the app (src/run-ports.ts; test/harness.ts has a no-op set for tests without a
 * worker). Every one is required: a port left unwired is a type error, not runs that stay pending.
 */
export interface RunHooks {
  /** Inside the run-creation transaction: enqueue the first scenario runs with the rows. */
  enqueueRun(tx: Tx, runId: string): Promise<void>;
  /** Inside the transaction that gives a run its final state: record its event. */
  onRunFinalized(tx: Tx, runId: string): Promise<void>;
  /** After commit: wake this process's worker. */
  afterRunCreated(runId: string): void;
  /** After commit: stop this process's conversations of the run. */
  afterRunCanceled(runId: string): void;
}

export interface Deps {
  config: Config;
  db: Database;
  clock: Clock;
  box: SecretBox;
  hooks: RunHooks;
  /** Provider adapters by provider value; a provider without one cannot be validated or run yet. */
  adapters: Partial<Record<ProviderId, ProviderAdapter>>;
  /** Prometheus metrics; absent in tests that do not look at them. */
  metrics?: Metrics;
  /** This process's event-loop lag, sampled continuously; absent: replies timed here carry no uncertainty. */
  lag?: LagProbe;
  /** Seams for outbound webhook calls (tests shorten the timeout, fake DNS); absent: 15 s and the system resolver. */
  webhookHttp?: { timeoutMs?: number; resolve?(hostname: string): Promise<Array<{ address: string; family: number }>> };
}

/** Every service function receives the caller's organization: tenancy lives in the signature. */
export interface Ctx {
  orgId: string;
}
