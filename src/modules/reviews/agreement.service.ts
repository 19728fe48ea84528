import type { Ctx, Deps } from '../../deps.js';
import { cohenKappa } from '../../engine/stats-kappa.js';
import { invalidField } from '../../lib/errors.js';
import { REVIEW_DECISIONS } from './reviews.schemas.js';

const JUDGE_DECISIONS = ['MET', 'PARTIAL', 'NOT_MET', 'UNSURE'] as const;
type JudgeDecision = (typeof JUDGE_DECISIONS)[number];
type Pair = readonly [JudgeDecision, JudgeDecision];

// A date, or a date and time with an optional zone. Without a zone it is read as UTC: Date.parse would read a
// date-time without one in local time, and the answer would depend on the server's zone.
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

export function parseSince(since: string): Date {
  const m = ISO_8601.exec(since);
  const fail = () => invalidField('since', 'since must be an ISO 8601 time, e.g. 2026-11-01T00:00:00Z', since);
  if (!m) throw fail();
  const [, y, mo, d, h, mi, sec, zone] = m;
  const t = Date.parse(h !== undefined && zone === undefined ? `${since}Z` : since);
  // Date.parse rolls 2026-02-30 over into March: the calendar date must be the one written
  const calendar = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  const valid = !Number.isNaN(t) && calendar.getUTCMonth() === Number(mo) - 1 && calendar.getUTCDate() === Number(d)
    && Number(h ?? 0) < 24 && Number(mi ?? 0) < 60 && Number(sec ?? 0) < 60;
  if (!valid) throw fail();
  return new Date(t);
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

function figures(pairs: Pair[]) {
  if (pairs.length === 0) return { reviewed: 0, agreement: null, cohen_kappa: null };
  // a judge UNSURE never equals a review: reviews are MET, PARTIAL or NOT_MET only
  const agree = pairs.filter(([j, r]) => j === r).length;
  return { reviewed: pairs.length, agreement: round((100 * agree) / pairs.length, 2), cohen_kappa: round(cohenKappa(pairs, JUDGE_DECISIONS)!, 3) };
}

function confusion(pairs: Pair[]) {
  const out = Object.fromEntries(JUDGE_DECISIONS.map((j) => [j, Object.fromEntries(REVIEW_DECISIONS.map((r) => [r, 0]))])) as
    Record<JudgeDecision, Record<(typeof REVIEW_DECISIONS)[number], number>>;
  for (const [j, r] of pairs) out[j][r as (typeof REVIEW_DECISIONS)[number]]++;
  return out;
}

// The effective (latest) review of every reviewed criterion, then the filters: `since` asks about reviews
// written from then on, so a criterion counts when its effective review is that recent.
const EFFECTIVE_SQL = `select judge_decision, decision, judge_model from (
    select distinct on (scenario_run_id, criterion_index) judge_decision, decision, judge_model, created_at
      from reviews
     where org_id = $1 and judge_graded and judge_model is not null
     order by scenario_run_id, criterion_index, created_at desc, id desc) e
  where ($2::timestamptz is null or e.created_at >= $2::timestamptz) and ($3::text is null or e.judge_model = $3::text)`;

/** How often the judge matched the humans who reviewed its decisions: overall and per judge model. */
export async function judgeAgreement(deps: Deps, ctx: Ctx, q: { judge_model?: string; since?: string }) {
  const since = q.since === undefined ? null : parseSince(q.since);
  const { rows } = await deps.db.executeSql(EFFECTIVE_SQL, [ctx.orgId, since?.toISOString() ?? null, q.judge_model ?? null]);
  const pairs: Pair[] = [];
  const byModel = new Map<string, Pair[]>();
  for (const r of rows as Array<{ judge_decision: JudgeDecision; decision: JudgeDecision; judge_model: string }>) {
    const pair = [r.judge_decision, r.decision] as const;
    pairs.push(pair);
    byModel.set(r.judge_model, [...(byModel.get(r.judge_model) ?? []), pair]);
  }
  return {
    ...figures(pairs),
    confusion: confusion(pairs),
    by_judge_model: [...byModel.keys()].sort().map((m) => ({ judge_model: m, ...figures(byModel.get(m)!) })),
  };
}
