import type { Clock } from '../src/lib/clock.js';

/** A clock the test moves by hand; sleep() resolves when the time is advanced past it. */
export function fakeClock(start = Date.now()): Clock & { advance(ms: number): void; set(ms: number): void } {
  let now = start;
  const sleepers: Array<{ at: number; resolve: () => void }> = [];
  const wake = () => {
    for (const s of [...sleepers]) if (s.at <= now) { sleepers.splice(sleepers.indexOf(s), 1); s.resolve(); }
  };
  return {
    now: () => now,
    sleep: (ms) => new Promise<void>((resolve) => { sleepers.push({ at: now + ms, resolve }); }),
    advance: (ms) => { now += ms; wake(); },
    set: (ms) => { now = ms; wake(); },
  };
}
