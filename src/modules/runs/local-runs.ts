/**
 * What this process knows of its own conversations, shared by the run ports and the worker: the abort
 * controllers of the conversations in hand, by run, and who to wake when a run is created here. A process
 * without a worker has none of either, so its ports do nothing.
 */
export class LocalRuns {
  private byRun = new Map<string, Set<AbortController>>();
  private wakers = new Set<() => void>();

  /** A controller for a conversation of `runId`; `release` it when the conversation is over. */
  hold(runId: string): AbortController {
    const c = new AbortController();
    let set = this.byRun.get(runId);
    if (!set) this.byRun.set(runId, (set = new Set()));
    set.add(c);
    return c;
  }

  release(runId: string, c: AbortController) {
    const set = this.byRun.get(runId);
    set?.delete(c);
    if (set?.size === 0) this.byRun.delete(runId);
  }

  abortRun(runId: string, reason: string) {
    for (const c of this.byRun.get(runId) ?? []) c.abort(new Error(reason));
  }

  runIds(): string[] {
    return [...this.byRun.keys()];
  }

  /** Calls `fn` on every wake until the returned function is called. */
  onWake(fn: () => void): () => void {
    this.wakers.add(fn);
    return () => this.wakers.delete(fn);
  }

  wake() {
    for (const fn of this.wakers) fn();
  }
}
