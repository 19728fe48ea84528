/**
 * Keeps loaded values for a while; concurrent gets of a key share one load, and a failed load is forgotten so
 * the next get tries again. Bounded crudely: past 10 000 keys it starts over.
 */
export class TtlCache<T> {
  private items = new Map<string, { at: number; value: Promise<T> }>();
  constructor(private ttlMs: number, private now: () => number) {}
  get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.items.get(key);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    if (this.items.size > 10_000) this.items.clear();
    const value = load();
    value.catch(() => this.items.delete(key));
    this.items.set(key, { at: this.now(), value });
    return value;
  }
}
