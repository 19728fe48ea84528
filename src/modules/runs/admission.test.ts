import { describe, expect, it } from 'vitest';
import { Admission } from './admission.js';

describe('admission control', () => {
  it('starts at the configured maximum and stays there while replies are timed accurately', () => {
    const a = new Admission({ max: 1000, now: () => 0 });
    for (let i = 0; i < 100; i++) a.observe(5);
    expect(a.limit()).toBe(1000);
  });

  it('cuts to 70 % on a reply timed with too much uncertainty, once per cooldown, never below the floor', () => {
    let t = 0;
    const a = new Admission({ max: 1000, min: 10, targetMs: 40, cooldownMs: 1000, now: () => t });
    a.observe(41);
    expect(a.limit()).toBe(700);
    a.observe(200); // the same cooldown: replies started under the old limit
    expect(a.limit()).toBe(700);
    for (let k = 0; k < 20; k++) { t += 1000; a.observe(100); }
    expect(a.limit()).toBe(10);
  });

  it('climbs back one conversation per accurate reply and says so, up to the maximum', () => {
    let t = 0;
    let raised = 0;
    const a = new Admission({ max: 100, min: 10, now: () => t });
    a.onRaise = () => raised++;
    a.observe(500);
    expect(a.limit()).toBe(70);
    for (let i = 0; i < 50; i++) a.observe(3);
    expect(a.limit()).toBe(100);
    expect(raised).toBe(30);
    t += 5000;
    a.observe(40); // at the target is still accurate
    expect(a.limit()).toBe(100);
  });

  it('a maximum below the floor is the floor', () => {
    const a = new Admission({ max: 4, min: 10, now: () => 0 });
    a.observe(1000);
    expect(a.limit()).toBe(4);
  });
});

describe('pacing of conversation starts', () => {
  it('admits a burst at once, then the rate; unused starts go back; says when the next one is due', () => {
    let t = 0;
    const a = new Admission({ max: 1000, burst: 100, ratePerSecond: 500, now: () => t });
    expect(a.admit(1000)).toBe(100);
    expect(a.admit(10)).toBe(0);
    expect(a.nextStartInMs()).toBe(2); // one start every 2 ms
    t += 100;
    expect(a.admit(1000)).toBe(50);
    a.refund(20); // only 30 jobs were waiting
    expect(a.admit(1000)).toBe(20);
    t += 10_000;
    expect(a.admit(1000)).toBe(100); // the budget never grows past the burst
  });
});
