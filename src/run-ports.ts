import type { Deps } from './deps.js';
import { RUN_CANCELED } from './engine/outcome.js';
import type { JobQueue } from './jobs/queue.js';
import { enqueueNext } from './modules/runs/enqueue.js';
import type { LocalRuns } from './modules/runs/local-runs.js';
import { emitRunEvent } from './modules/webhooks/deliveries.service.js';
import { deliveryEnqueuer } from './modules/webhooks/delivery-worker.js';

/** Everything the app and the workers are built from, before the run ports are wired. */
export type CoreDeps = Omit<Deps, 'hooks'>;

/**
 * The app's dependencies with the run ports wired, before the app or a worker exists: creating a run enqueues
 * its first scenario runs on the job queue and wakes this process's worker; canceling one stops this process's
 * conversations of it (other processes poll); a run's final transaction records its webhook event.
 */
export function withRunPorts(core: CoreDeps, queue: JobQueue, local: LocalRuns): Deps {
  const enqueueDelivery = deliveryEnqueuer(core, queue);
  const deps: Deps = {
    ...core,
    hooks: {
      enqueueRun: (tx, runId) => enqueueNext(core, queue, tx, runId, core.config.scenarioConcurrency),
      onRunFinalized: async (tx, runId) => { await emitRunEvent(deps, tx, runId, enqueueDelivery); },
      afterRunCreated: () => local.wake(),
      afterRunCanceled: (runId) => local.abortRun(runId, RUN_CANCELED),
    },
  };
  return deps;
}
