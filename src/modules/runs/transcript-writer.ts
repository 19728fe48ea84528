import type { Database } from '../../db/client.js';
import type { TranscriptEntry } from '../../engine/types.js';

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
    this.flushing = this.flushing.then(() => this.db.executeSql(
      // rows locked in id order, like every other multi-row writer of scenario_runs (no deadlock cycles)
      `with l as (select id from scenario_runs where id in (select (x->>'id')::uuid from jsonb_array_elements($1::jsonb) x) order by id for update)
       update scenario_runs s set transcript = s.transcript || v.entries
         from jsonb_to_recordset($1::jsonb) as v(id uuid, owner text, entries jsonb)
        where s.id = v.id and s.id in (select id from l) and s.lease_owner = v.owner and s.status in ('running', 'grading')`,
      [JSON.stringify(batch)],
    )).then(() => {}, this.onError);
    return this.flushing;
  }

  async close() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}
