import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

// PGlite on a thread of its own. PGlite is PostgreSQL compiled to WebAssembly and runs wherever it is called:
// in the main thread it takes about half of the process's CPU under load (bench/RESULTS.md), and every
// conversation's next step waits behind it. Here the main thread only sends statements and reads rows.
//
// The proxy speaks the part of PGlite's interface that drizzle's pglite driver and our client use: query()
// with drizzle's row mode and pass-through parsers, exec(), transaction() (the callback runs on the main thread;
// its statements go to the transaction held open on the database thread until the callback settles), close().

type QueryOptions = { rowMode?: 'array' | 'object'; parsers?: Record<number, unknown> };
type Result = { rows: any[]; fields: Array<{ name: string; dataTypeID: number }>; affectedRows?: number };
type Reply = { id: number; ok?: unknown; error?: Record<string, unknown> };

/** The thread's program, shipped as source (see lib/http-thread.ts for why). */
function threadMain() {
  const { parentPort, workerData } = require('node:worker_threads');
  const { PGlite } = require(workerData.pglitePath);
  let db: any = null;
  const txs = new Map<number, any>();
  const ends = new Map<number, { commit: () => void; rollback: () => void }>();
  const ROLLBACK = new Error('rollback requested');

  const errorOf = (err: any) => {
    const out: Record<string, unknown> = { message: String(err?.message ?? err), name: err?.name };
    for (const k of ['code', 'detail', 'hint', 'position', 'where', 'schema', 'table', 'column', 'dataType', 'constraint', 'severity']) {
      if (err && err[k] !== undefined) out[k] = err[k];
    }
    return out;
  };
  const passThrough = (types: number[] | undefined) => (types ? Object.fromEntries(types.map((t) => [t, (v: unknown) => v])) : undefined);

  const handle = async (msg: any) => {
    switch (msg.op) {
      case 'open':
        db = msg.dataDir ? new PGlite(msg.dataDir) : new PGlite();
        await db.waitReady;
        return null;
      case 'query': {
        const target = msg.tx ? txs.get(msg.tx) : db;
        const r = await target.query(msg.sql, msg.params, { rowMode: msg.rowMode, parsers: passThrough(msg.raw) });
        return { rows: r.rows, fields: r.fields, affectedRows: r.affectedRows };
      }
      case 'exec': {
        const target = msg.tx ? txs.get(msg.tx) : db;
        return (await target.exec(msg.sql)).map((r: any) => ({ rows: r.rows, fields: r.fields, affectedRows: r.affectedRows }));
      }
      case 'begin':
        // answered once the transaction is open; it stays open until 'end' for it arrives
        // (PGlite runs one transaction at a time: this one may first wait for another to end)
        return new Promise((opened, failed) => {
          let begun = false;
          db.transaction((tx: any) => {
            begun = true;
            txs.set(msg.id, tx);
            opened(null);
            return new Promise<void>((commit, rollback) => ends.set(msg.id, { commit, rollback: () => rollback(ROLLBACK) }));
          }).then(
            () => parentPort.postMessage({ id: -msg.id, ok: null }),
            (err: unknown) => {
              if (!begun) return failed(err); // BEGIN itself failed: the caller is still waiting for it
              parentPort.postMessage(err === ROLLBACK ? { id: -msg.id, ok: null } : { id: -msg.id, error: errorOf(err) });
            },
          ).finally(() => { txs.delete(msg.id); ends.delete(msg.id); });
        });
      case 'end':
        if (msg.commit) ends.get(msg.tx)?.commit();
        else ends.get(msg.tx)?.rollback();
        return undefined; // the transaction's own reply (id −tx) says how it ended
      case 'close':
        await db?.close();
        return null;
    }
    throw new Error(`unknown op ${msg.op}`);
  };

  parentPort.on('message', (msg: any) => {
    handle(msg).then(
      (ok) => { if (ok !== undefined) parentPort.postMessage({ id: msg.id, ok }); },
      (err) => parentPort.postMessage({ id: msg.id, error: errorOf(err) }),
    );
  });
}

const rebuildError = (e: Record<string, unknown>) => Object.assign(new Error(String(e.message)), e);

/**
 * Replies by id. The thread keeps the process alive only while a reply is awaited, as PGlite in the main
 * thread would: a command that forgets to close the database still exits, and never in the middle of a write.
 */
class Link {
  private seq = 0;
  /** Why the thread is gone; every later call fails with it (the database is closed or crashed). */
  private dead: unknown = null;
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: unknown) => void }>();
  constructor(private readonly worker: Worker) {
    worker.unref();
    worker.on('message', (r: Reply) => {
      const p = this.pending.get(r.id);
      if (!p) return;
      this.pending.delete(r.id);
      if (this.pending.size === 0) worker.unref();
      if (r.error) p.reject(rebuildError(r.error));
      else p.resolve(r.ok);
    });
    const fail = (err: unknown) => {
      this.dead ??= err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`database thread exited (${code})`)));
  }

  nextId() {
    return ++this.seq;
  }

  /** Waits for a reply that no message of ours asks for directly (a transaction's end, id −tx). */
  expect<T>(replyId: number): Promise<T> {
    return new Promise<T>((resolve, reject) => this.await(replyId, resolve, reject));
  }

  private await(id: number, resolve: (v: any) => void, reject: (e: unknown) => void) {
    if (this.pending.size === 0) this.worker.ref();
    this.pending.set(id, { resolve, reject });
  }

  post(msg: Record<string, unknown>) {
    this.worker.postMessage(msg);
  }

  call<T>(msg: Record<string, unknown> & { id: number }): Promise<T> {
    if (this.dead) return Promise.reject(this.dead);
    return new Promise<T>((resolve, reject) => {
      this.await(msg.id, resolve, reject);
      this.worker.postMessage(msg);
    });
  }
}

function queryMessage(link: Link, tx: number | null, sql: string, params: unknown[] | undefined, opts: QueryOptions | undefined) {
  // drizzle's parsers only ever pass values through as text: the thread rebuilds them from their type ids
  const raw = opts?.parsers ? Object.keys(opts.parsers).map(Number) : undefined;
  return { op: 'query', id: link.nextId(), tx, sql, params: params ?? [], rowMode: opts?.rowMode, raw };
}

class ThreadTx {
  constructor(private readonly link: Link, readonly txId: number) {}
  query(sql: string, params?: unknown[], opts?: QueryOptions): Promise<Result> {
    return this.link.call(queryMessage(this.link, this.txId, sql, params, opts));
  }
  exec(sql: string): Promise<Result[]> {
    return this.link.call({ op: 'exec', id: this.link.nextId(), tx: this.txId, sql });
  }
}

/** PGlite's interface (the part drizzle and our client use), served from a database thread. */
export class PgliteThread {
  readonly waitReady: Promise<void>;
  private readonly worker: Worker;
  private readonly link: Link;

  constructor(dataDir: string | null) {
    const pglitePath = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    this.worker = new Worker(`const __name = (f) => f; (${threadMain.toString()})()`, { eval: true, workerData: { pglitePath } });
    this.link = new Link(this.worker);
    this.waitReady = this.link.call<void>({ op: 'open', id: this.link.nextId(), dataDir });
  }

  query(sql: string, params?: unknown[], opts?: QueryOptions): Promise<Result> {
    return this.link.call(queryMessage(this.link, null, sql, params, opts));
  }

  exec(sql: string): Promise<Result[]> {
    return this.link.call({ op: 'exec', id: this.link.nextId(), tx: null, sql });
  }

  async transaction<T>(fn: (tx: ThreadTx) => Promise<T>): Promise<T> {
    const id = this.link.nextId();
    const ended = this.link.expect<void>(-id);
    ended.catch(() => undefined); // observed below; a BEGIN that fails never ends
    await this.link.call({ op: 'begin', id });
    let result: T;
    try {
      result = await fn(new ThreadTx(this.link, id));
    } catch (err) {
      this.link.post({ op: 'end', id: this.link.nextId(), tx: id, commit: false });
      await ended.catch(() => undefined);
      throw err;
    }
    this.link.post({ op: 'end', id: this.link.nextId(), tx: id, commit: true });
    await ended;
    return result;
  }

  async close(): Promise<void> {
    await this.link.call({ op: 'close', id: this.link.nextId() }).catch(() => undefined);
    await this.worker.terminate();
  }
}
