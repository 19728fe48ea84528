/**
 * Cohen's kappa of two raters over paired labels: (p_o − p_e) / (1 − p_e), where p_o is the share of pairs that
 * agree and p_e the agreement expected by chance from each rater's own label frequencies. `categories` fixes the
 * label set; a pair with a label outside it is an error, not silently dropped. Null without pairs. When chance
 * agreement is certain (both raters used one and the same label throughout) the raters agree perfectly and
 * kappa is 1 rather than 0/0.
 */
export function cohenKappa<C extends string>(pairs: ReadonlyArray<readonly [C, C]>, categories: readonly C[]): number | null {
  if (pairs.length === 0) return null;
  const index = new Map(categories.map((c, i) => [c, i]));
  const a = new Array<number>(categories.length).fill(0);
  const b = new Array<number>(categories.length).fill(0);
  let agree = 0;
  for (const [x, y] of pairs) {
    const i = index.get(x);
    const j = index.get(y);
    if (i === undefined || j === undefined) throw new RangeError(`label outside the categories: ${i === undefined ? x : y}`);
    a[i]++;
    b[j]++;
    if (i === j) agree++;
  }
  const n = pairs.length;
  const po = agree / n;
  const pe = a.reduce((sum, ai, k) => sum + (ai / n) * (b[k] / n), 0);
  if (1 - pe < 1e-12) return 1;
  return (po - pe) / (1 - pe);
}
