import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUniqueViolation } from './errors.js';
import { PgliteThread } from './pglite-thread.js';

describe('PGlite on its own thread', () => {
  let db: PgliteThread;
  beforeAll(async () => {
    db = new PgliteThread(null);
    await db.waitReady;
    await db.exec('create table t (id int primary key, at timestamptz, doc jsonb); create table u (x int)');
  });
  afterAll(() => db.close());

  it('answers queries with parameters, in object or array rows, with drizzle\'s pass-through types as text', async () => {
    await db.query('insert into t values ($1, $2, $3)', [1, '2026-11-26T01:02:03.000Z', JSON.stringify({ a: [1, 2] })]);
    const obj = await db.query('select id, at, doc from t where id = $1', [1]);
    expect(obj.rows).toEqual([{ id: 1, at: new Date('2026-11-26T01:02:03.000Z'), doc: { a: [1, 2] } }]);
    const arr = await db.query('select id, at from t', [], { rowMode: 'array', parsers: { 1184: (v: unknown) => v } });
    expect(arr.rows).toEqual([[1, '2026-11-26 01:02:03+00']]);
    expect(arr.fields.map((f) => f.name)).toEqual(['id', 'at']);
    expect((await db.exec('select 1 as a; select 2 as b')).map((r) => r.rows)).toEqual([[{ a: 1 }], [{ b: 2 }]]);
  });

  it('a transaction commits what its callback wrote, and rolls it all back when the callback throws', async () => {
    const r = await db.transaction(async (tx) => {
      await tx.query('insert into u values (1)');
      return (await tx.query('select count(*)::int as n from u')).rows[0].n;
    });
    expect(r).toBe(1);
    await expect(db.transaction(async (tx) => {
      await tx.query('insert into u values (2)');
      throw new Error('no');
    })).rejects.toThrow('no');
    expect((await db.query('select x from u order by x')).rows).toEqual([{ x: 1 }]);
  });

  it('database errors keep their PostgreSQL fields (a unique violation is recognised as one)', async () => {
    const err = await db.query('insert into t values (1, now(), null)').catch((e) => e);
    expect(err.code).toBe('23505');
    expect(err.constraint).toBe('t_pkey');
    expect(isUniqueViolation(err)).toBe(true);
    // a failed statement inside a transaction fails the transaction, which rolls back
    await expect(db.transaction(async (tx) => {
      await tx.query('insert into u values (3)');
      await tx.query('insert into t values (1, now(), null)');
    })).rejects.toMatchObject({ code: '23505' });
    expect((await db.query('select count(*)::int as n from u')).rows[0].n).toBe(1);
  });

  it('one transaction at a time: a second waits for the first, and statements outside wait too', async () => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const first = db.transaction(async (tx) => {
      await tx.query('insert into u values (10)');
      order.push('first wrote');
      await gate;
      order.push('first ends');
    });
    await new Promise((r) => setTimeout(r, 20));
    const second = db.transaction(async (tx) => {
      order.push('second begins');
      return (await tx.query('select count(*)::int as n from u where x = 10')).rows[0].n;
    });
    const outside = db.query('select count(*)::int as n from u where x = 10').then((r) => { order.push('outside'); return r.rows[0].n; });
    await new Promise((r) => setTimeout(r, 50));
    expect(order).toEqual(['first wrote']);
    release();
    await first;
    expect(await second).toBe(1);
    expect(await outside).toBe(1);
    expect(order.slice(0, 2)).toEqual(['first wrote', 'first ends']);
  });
});

describe('PGlite thread after close', () => {
  it('fails later calls at once instead of leaving them waiting', async () => {
    const db = new PgliteThread(null);
    await db.waitReady;
    await db.close();
    await expect(db.query('select 1')).rejects.toThrow(/database thread exited/);
  });
});
