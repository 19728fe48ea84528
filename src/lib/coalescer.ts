/** Gathers the calls made in one turn of the event loop into one batch call. */
export class Coalescer<K, R> {
  private keys: K[] = [];
  private pending: Promise<R> | null = null;
  constructor(private run: (keys: K[]) => Promise<R>) {}
  add(key: K): Promise<R> {
    this.keys.push(key);
    this.pending ??= new Promise<void>((r) => setImmediate(r)).then(() => {
      const keys = this.keys;
      this.keys = [];
      this.pending = null;
      return this.run(keys);
    });
    return this.pending;
  }
}
