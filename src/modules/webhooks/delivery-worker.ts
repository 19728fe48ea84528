import { eq } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { webhookDeliveries } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { JOBS } from '../../jobs/catalog.js';
import type { JobQueue } from '../../jobs/queue.js';
import { Dispatcher } from '../../jobs/worker.js';
import { attemptScheduled, type EnqueueAttempt } from './delivery-attempt.js';
import { sweepDeliveries } from './delivery-sweeper.js';

export interface DeliveryWorkerOptions {
  pollIntervalMs: number;
  /** Deliveries in flight at once in this process. */
  concurrency: number;
  /** How often this worker looks for deliveries whose attempt or job was lost. */
  sweepIntervalMs: number;
}

export const DEFAULT_DELIVERY_WORKER_OPTIONS: DeliveryWorkerOptions = { pollIntervalMs: 1000, concurrency: 20, sweepIntervalMs: 3000 };

export interface DeliveryWorker {
  startWorker(): void;
  stop(): Promise<void>;
}

/**
 * Schedules a delivery attempt as a job, in the caller's transaction, and notes when it is due so the sweeper can
 * tell a job that was lost from one that is still waiting.
 */
export const deliveryEnqueuer = (deps: Pick<Deps, 'clock'>, queue: JobQueue): EnqueueAttempt => async (tx, deliveryId, attempt, delaySeconds) => {
  await queue.send(tx, JOBS.webhookDelivery, { delivery_id: deliveryId, attempt }, { startAfterSeconds: delaySeconds });
  await tx.orm.update(webhookDeliveries).set({ enqueuedAt: new Date(deps.clock.now() + Math.max(0, delaySeconds) * 1000) })
    .where(eq(webhookDeliveries.id, deliveryId));
};

/**
 * Run events out to webhooks. The onRunFinalized port (src/run-ports.ts) records them inside the run's final transaction; workers send
 * them. Every process can record; only workers send. The delivery rows are the truth: a job only wakes
 * a worker, and every worker's sweeper re-enqueues what a dead worker or an exhausted job left due.
 */
export function createDeliveryWorker(deps: Deps, queue: JobQueue, log: { error(obj: unknown, msg: string): void }, opts: Partial<DeliveryWorkerOptions> = {}): DeliveryWorker {
  const o = { ...DEFAULT_DELIVERY_WORKER_OPTIONS, ...opts };
  const workerId = `${process.pid}-${uuidv7()}`;
  let dispatcher: Dispatcher<typeof JOBS.webhookDelivery.payload> | null = null;
  let sweeper: NodeJS.Timeout | null = null;
  let sweeping: Promise<unknown> | null = null;
  const enqueue = deliveryEnqueuer(deps, queue);

  return {
    startWorker() {
      dispatcher = new Dispatcher({
        queue, job: JOBS.webhookDelivery, concurrency: o.concurrency, pollIntervalMs: o.pollIntervalMs,
        handle: async (p) => { await attemptScheduled(deps, p.delivery_id, p.attempt, workerId, enqueue); },
        onError: (err, context) => log.error({ err, context }, 'webhook delivery job failed'),
      });
      dispatcher.start();
      sweeper = setInterval(() => {
        if (sweeping) return;
        sweeping = sweepDeliveries(deps, enqueue)
          .then((n) => { if (n > 0) dispatcher?.wake(); })
          .catch((err) => log.error({ err }, 'delivery sweep failed'))
          .finally(() => { sweeping = null; });
      }, o.sweepIntervalMs);
      sweeper.unref();
    },
    async stop() {
      if (sweeper) clearInterval(sweeper);
      sweeper = null;
      await sweeping;
      await dispatcher?.stop();
      dispatcher = null;
    },
  };
}
