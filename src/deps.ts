import type { Config } from './config.js';
import type { Database, Tx } from './db/client.js';
import type { Clock } from './lib/clock.js';
import type { SecretBox } from './lib/secret-box.js';
import type { Metrics } from './lib/metrics.js';
import type { ProviderAdapter, ProviderId } from './providers/types.js';

/** Hooks the run engine plugs in; the API works without them (runs then stay pending). */
export interface RunHooks {
  /** Called inside the run-creation transaction: enqueue the work with the rows. */
  enqueueRun?(tx: Tx, runId: string, scenarioRunIds: string[]): Promise<void>;
  /** Called after a run was canceled (in the same transaction), e.g. to emit its event. */
  onRunFinalized?(tx: Tx, runId: string): Promise<void>;
  /** Called after commit: wake local workers / abort local conversations. */
  afterRunCreated?(runId: string): void;
  afterRunCanceled?(runId: string): void;
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
  /** Seams for outbound webhook calls (tests shorten the timeout, fake DNS); absent: 15 s and the system resolver. */
  webhookHttp?: { timeoutMs?: number; resolve?(hostname: string): Promise<Array<{ address: string; family: number }>> };
}

/** Every service function receives the caller's organization: tenancy lives in the signature. */
export interface Ctx {
  orgId: string;
}
