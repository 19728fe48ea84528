import { startCli, type Proc } from '../cluster/processes.js';

/**
 * The processes under test: API processes (`serve --no-worker`) and worker processes on one PostgreSQL,
 * run from the built CLI as a deployment would. Workers are replaced after a kill; every process that
 * ever ran is kept, so the suite can show the output of one that died on its own.
 */
export class ChaosCluster {
  apis: Array<{ proc: Proc; base: string }> = [];
  workers: Proc[] = [];
  private all: Proc[] = [];
  kills = 0;
  pauses = 0;

  constructor(private env: Record<string, string>) {}

  async start(apiCount: number, workerCount: number) {
    const apis = Array.from({ length: apiCount }, () => this.track(startCli(['serve', '--no-worker'], this.env)));
    for (const proc of apis) {
      const [, base] = await proc.waitFor(/listening on (http:\/\/[^/\s]+)\/api\/v1/, 60_000);
      this.apis.push({ proc, base });
    }
    await Promise.all(Array.from({ length: workerCount }, () => this.startWorker()));
  }

  private track(p: Proc) {
    this.all.push(p);
    return p;
  }

  async startWorker() {
    const w = this.track(startCli(['worker'], this.env));
    await w.waitFor(/Worker: running/, 60_000);
    this.workers.push(w);
    return w;
  }

  /** SIGKILL a random worker, or the one with this pid (no warning, no hand-back), and start a replacement. */
  async killRandomWorker(rand: () => number, pid?: number) {
    const chosen = this.workers.findIndex((w) => w.child.pid === pid);
    const i = chosen >= 0 ? chosen : Math.floor(rand() * this.workers.length);
    const [victim] = this.workers.splice(i, 1);
    await victim.kill('SIGKILL');
    this.kills++;
    await this.startWorker();
  }

  /** SIGSTOP a random worker (or the one with this pid) for `ms`, then SIGCONT: it wakes up holding stale work. */
  async pauseRandomWorker(rand: () => number, ms: number, pid?: number) {
    const w = this.workers.find((x) => x.child.pid === pid) ?? this.workers[Math.floor(rand() * this.workers.length)];
    w.child.kill('SIGSTOP');
    this.pauses++;
    await new Promise((r) => setTimeout(r, ms));
    w.child.kill('SIGCONT');
  }

  /** Processes that exited although the suite did not kill them (none may, whatever happens to PostgreSQL). */
  unexpectedExits(): Proc[] {
    const live = new Set([...this.apis.map((a) => a.proc), ...this.workers]);
    return this.all.filter((p) => live.has(p) && (p.child.exitCode !== null || p.child.signalCode !== null));
  }

  async stop() {
    for (const p of this.all) await p.kill('SIGKILL');
  }
}
