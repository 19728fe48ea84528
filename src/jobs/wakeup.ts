import pg from 'pg';
import type { SqlExecutor } from '../db/client.js';

/**
 * Cross-process wake-up for workers: a NOTIFY sent inside the transaction that enqueues work is
 * delivered when it commits, so a worker in another process starts at once instead of at its next poll.
 */
const CHANNEL = 'rehearsal_work';

export async function notifyWork(exec: SqlExecutor) {
  await exec.executeSql(`select pg_notify('${CHANNEL}', '')`);
}

/** Listens on a dedicated connection (PostgreSQL only); reconnects after the server restarts. */
export function listenForWork(url: string, onWake: () => void, onError: (err: unknown) => void): () => Promise<void> {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;
  const connect = async () => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: url });
    c.on('notification', () => onWake());
    c.on('error', (err) => { onError(err); reconnect(); });
    c.on('end', () => reconnect());
    try {
      await c.connect();
      await c.query(`listen ${CHANNEL}`);
      client = c;
      // anything enqueued while we were away: look now
      onWake();
    } catch (err) {
      onError(err);
      c.end().catch(() => {});
      reconnect();
    }
  };
  const reconnect = () => {
    if (stopped || retry) return;
    client = null;
    retry = setTimeout(() => { retry = null; void connect(); }, 1000);
  };
  void connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}
