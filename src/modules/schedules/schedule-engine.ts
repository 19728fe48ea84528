import type { Deps } from '../../deps.js';
import { JOBS } from '../../jobs/catalog.js';
import type { JobQueue } from '../../jobs/queue.js';
import { Dispatcher } from '../../jobs/worker.js';
import { fireDueSchedules } from './schedule-firing.js';

/** Worker side of schedules: handles pg-boss's minute tick (sent by its scheduler, once across processes). */
export function createScheduleEngine(deps: Deps, queue: JobQueue, log: { error(obj: unknown, msg: string): void }, opts: { pollIntervalMs?: number } = {}) {
  let dispatcher: Dispatcher<typeof JOBS.scheduleTick.payload> | null = null;
  return {
    startWorker() {
      dispatcher = new Dispatcher({
        queue, job: JOBS.scheduleTick, concurrency: 1, pollIntervalMs: opts.pollIntervalMs ?? 1000,
        handle: async () => { await fireDueSchedules(deps); },
        onError: (err, context) => log.error({ err, context }, 'schedule tick failed'),
      });
      dispatcher.start();
    },
    async stop() {
      await dispatcher?.stop();
      dispatcher = null;
    },
  };
}
