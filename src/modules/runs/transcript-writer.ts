import type { Database } from '../../db/client.js';
import type { TranscriptEntry } from '../../engine/types.js';
import { appendTranscripts } from './run-store/claims.js';

/**
 * Appends transcript entries as conversations produce them, so a live run shows its turns and a
 * crash leaves a record. Entries are batched: one statement per flush for every conversation in
 * this process, so the cost per turn does not grow with the number of conversations.
 */
export class TranscriptWriter {
  private pending = new Map<string, { owner: string; entries: TranscriptEntry[] }>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private db: Database, private intervalMs = 100, private onError: (err: unknown) => void = () => {}) {}

  append(scenarioRunId: string, owner: string, entry: TranscriptEntry) {
    const slot = this.pending.get(scenarioRunId);
    if (slot) slot.entries.push(entry);
    else this.pending.set(scenarioRunId, { owner, entries: [entry] });
    this.timer ??= setTimeout(() => { this.timer = null; void this.flush(); }, this.intervalMs);
  }

  /** Drops what was not written yet for a conversation whose final transcript is about to be stored. */
  discard(scenarioRunId: string) {
    this.pending.delete(scenarioRunId);
  }

  flush(): Promise<void> {
    if (this.pending.size === 0) return this.flushing;
    const batch = [...this.pending].map(([id, v]) => ({ id, owner: v.owner, entries: v.entries }));
    this.pending.clear();
    this.flushing = this.flushing.then(() => appendTranscripts(this.db, batch)).then(() => {}, this.onError);
    return this.flushing;
  }

  async close() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}
