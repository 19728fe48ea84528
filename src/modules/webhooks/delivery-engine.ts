import type { Deps, RunHooks } from '../../deps.js';
import { JOBS } from '../../jobs/catalog.js';
import type { JobQueue } from '../../jobs/queue.js';
import { Dispatcher } from '../../jobs/worker.js';
import { attemptScheduled, DeliveryBusy, type EnqueueAttempt } from './delivery-attempt.js';
import { emitRunEvent } from './deliveries.service.js';

export interface WebhookEngineOptions {
  pollIntervalMs: number;
  /** Deliveries in flight at once in this process. */
  concurrency: number;
}

export const DEFAULT_WEBHOOK_ENGINE_OPTIONS: WebhookEngineOptions = { pollIntervalMs: 1000, concurrency: 20 };

export interface WebhookEngine {
  hooks: Pick<RunHooks, 'onRunFinalized'>;
  startWorker(): void;
  stop(): Promise<void>;
}

/**
 * Run events out to webhooks. The hook records them inside the run's final transaction; the worker
 * sends them. Every process can record; only workers send, and a delivery recorded while no worker
 * was up is sent by the next one (the job waits in the queue).
 */
export function createWebhookEngine(deps: Deps, queue: JobQueue, log: { error(obj: unknown, msg: string): void }, opts: Partial<WebhookEngineOptions> = {}): WebhookEngine {
  const o = { ...DEFAULT_WEBHOOK_ENGINE_OPTIONS, ...opts };
  let dispatcher: Dispatcher<typeof JOBS.webhookDelivery.payload> | null = null;
  const enqueue: EnqueueAttempt = (tx, deliveryId, attempt, delaySeconds) =>
    queue.send(tx, JOBS.webhookDelivery, { delivery_id: deliveryId, attempt }, { startAfterSeconds: delaySeconds });

  return {
    hooks: {
      onRunFinalized: async (tx, runId) => { await emitRunEvent(deps, tx, runId, enqueue); },
    },
    startWorker() {
      dispatcher = new Dispatcher({
        queue, job: JOBS.webhookDelivery, concurrency: o.concurrency, pollIntervalMs: o.pollIntervalMs,
        handle: async (p) => { await attemptScheduled(deps, p.delivery_id, p.attempt, enqueue); },
        onError: (err, context) => {
          // expected while another worker's attempt holds the delivery; pg-boss tries again later
          if (!(err instanceof DeliveryBusy)) log.error({ err, context }, 'webhook delivery job failed');
        },
      });
      dispatcher.start();
    },
    async stop() {
      await dispatcher?.stop();
      dispatcher = null;
    },
  };
}
