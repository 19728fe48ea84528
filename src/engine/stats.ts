/**
 * The statistics behind repeats and comparisons, as pure functions. Written here rather than pulled in: the
 * maintained packages (jstat, simple-statistics) carry distributions but none of the one-sided Fisher test,
 * Holm's step-down or the Wilson interval, and each of these is a few exact lines over small counts.
 */

/** The two-sided 95 % normal quantile. */
const Z95 = 1.959963984540054;

export interface Interval { low: number; high: number }

/**
 * Wilson score interval of a proportion `successes / n` as fractions in [0, 1]. `n` may be fractional (an
 * effective sample size). null when n is 0: no observation, no interval.
 */
export function wilson(successes: number, n: number, z = Z95): Interval | null {
  if (!(n > 0)) return null;
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // rounding noise must never put the observed proportion outside its own interval
  return { low: Math.max(0, Math.min(p, center - half)), high: Math.min(1, Math.max(p, center + half)) };
}

/** A Wilson interval in percent, 2 decimals, rounded outwards so it still holds the rounded pass rate. */
export function wilsonPercent(successes: number, n: number): Interval | null {
  const w = wilson(successes, n);
  return w && toPercent(w);
}

export function toPercent(w: Interval): Interval {
  return { low: Math.floor(w.low * 10000 + 1e-9) / 100, high: Math.ceil(w.high * 10000 - 1e-9) / 100 };
}

const logFactorials: number[] = [0];
function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i++) logFactorials[i] = logFactorials[i - 1] + Math.log(i);
  return logFactorials[n];
}
const logChoose = (n: number, k: number) => logFactorial(n) - logFactorial(k) - logFactorial(n - k);

/**
 * One-sided Fisher exact test on two proportions a/n1 (baseline) and b/n2 (current). `direction` 'lower' asks
 * whether the current proportion is lower than the baseline's: P(X ≤ b) where X, the current side's successes,
 * is hypergeometric given the table's margins; 'higher' is P(X ≥ b).
 */
export function fisherOneSided(a: number, n1: number, b: number, n2: number, direction: 'lower' | 'higher'): number {
  const successes = a + b;
  const total = n1 + n2;
  const lo = Math.max(0, successes - n1);
  const hi = Math.min(n2, successes);
  const denom = logChoose(total, successes);
  let p = 0;
  for (let x = lo; x <= hi; x++) {
    if (direction === 'lower' ? x > b : x < b) continue;
    p += Math.exp(logChoose(n2, x) + logChoose(n1, successes - x) - denom);
  }
  return Math.min(1, p);
}

/**
 * Holm's step-down adjustment: the i-th smallest of m p-values becomes max over j ≤ i of (m − j + 1)·p_(j),
 * capped at 1. Returned in the input's order; a value below alpha is significant at family-wise level alpha.
 */
export function holm(pValues: number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p || x.i - y.i);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}

/** Exact one-sided sign test: P(X ≥ k) for X ~ Binomial(n, ½); 1 when n is 0. */
export function signTest(k: number, n: number): number {
  if (n <= 0 || k <= 0) return 1;
  let p = 0;
  for (let x = k; x <= n; x++) p += Math.exp(logChoose(n, x) - n * Math.LN2);
  return Math.min(1, p);
}

export interface Cluster { passed: number; graded: number }

/**
 * Intra-cluster correlation of binary outcomes by the one-way ANOVA estimator, clamped to [0, 1]. With a single
 * cluster nothing separates its repetitions' agreement from chance, so it is taken as fully correlated (1).
 */
export function intraClusterCorrelation(clusters: Cluster[]): number {
  const cs = clusters.filter((c) => c.graded > 0);
  const k = cs.length;
  const n = cs.reduce((s, c) => s + c.graded, 0);
  if (k === 0 || n === k) return 0;
  if (k === 1) return 1;
  const p = cs.reduce((s, c) => s + c.passed, 0) / n;
  const msb = cs.reduce((s, c) => s + c.graded * (c.passed / c.graded - p) ** 2, 0) / (k - 1);
  const msw = cs.reduce((s, c) => s + c.passed * (1 - c.passed / c.graded), 0) / (n - k);
  const m0 = (n - cs.reduce((s, c) => s + c.graded * c.graded, 0) / n) / (k - 1);
  const denom = msb + (m0 - 1) * msw;
  if (denom <= 0) return 0;
  return Math.min(1, Math.max(0, (msb - msw) / denom));
}

/**
 * 95 % interval of a pooled pass rate whose observations come in clusters (a scenario's repetitions): Wilson on
 * the effective sample size n / (1 + (m̄ − 1)·ICC), m̄ the mean cluster size. Correlated repetitions count for
 * less than independent scenarios, so the interval widens as repetitions agree with each other. Fractions.
 */
export function clusteredWilson(clusters: Cluster[]): Interval | null {
  const cs = clusters.filter((c) => c.graded > 0);
  const n = cs.reduce((s, c) => s + c.graded, 0);
  if (n === 0) return null;
  const passed = cs.reduce((s, c) => s + c.passed, 0);
  const designEffect = 1 + (n / cs.length - 1) * intraClusterCorrelation(cs);
  const nEff = n / designEffect;
  return wilson((passed / n) * nEff, nEff);
}
