import pg from 'pg';
import type { ReceivedHook } from '../fakes/webhook-receiver.js';

/**
 * The invariants, read from PostgreSQL directly (not through the API under test). Every broken one is
 * a line in `violations`; the numbers describe what the run covered.
 */
export interface CheckResult {
  violations: string[];
  numbers: {
    runs: number; runsByStatus: Record<string, number>; scenarioRuns: number; scenarioRunsByStatus: Record<string, number>;
    takenOver: number; events: number; deliveries: number; webhookRequests: number; distinctEventsReceived: number;
    attempts: number; lostAttempts: number; attemptsNotCounted: Record<string, number>; finalByFault: Record<string, number>;
  };
}

const FINAL = ['completed', 'failed', 'canceled'];
const EVENT_OF: Record<string, string> = { completed: 'test_run_completed', failed: 'test_run_failed', canceled: 'test_run_canceled' };
const tally = (xs: string[]) => xs.reduce<Record<string, number>>((m, x) => ({ ...m, [x]: (m[x] ?? 0) + 1 }), {});

export async function check(url: string, accepted: string[], received: ReceivedHook[]): Promise<CheckResult> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const v: string[] = [];
  try {
    const runs = (await db.query(`select id, status, agent_id, org_id, max_turns, total_scenarios, passed_count, failed_count, error_count,
      fault_agent, fault_tester, fault_judge, fault_provider, fault_internal, fault_canceled, retried_count from runs`)).rows;
    const srs = (await db.query('select id, run_id, status, attempts, attempt_history, fault, transcript, completed_at, lease_owner from scenario_runs')).rows;
    const events = (await db.query('select id, run_id, event from webhook_events where run_id is not null')).rows;
    const deliveries = (await db.query('select id, webhook_id, event_id, status, attempt_count from webhook_deliveries')).rows;
    const attempts = (await db.query('select delivery_id, attempt, attempted_at, error, claim_token from webhook_attempts order by delivery_id, attempt')).rows;
    const hooks = (await db.query('select id, org_id, agent_id, events, is_active, url from webhooks')).rows;

    const byId = new Map(runs.map((r) => [r.id, r]));
    for (const id of accepted) if (!byId.has(id)) v.push(`accepted run ${id} is not in the database`);
    const srsOf = new Map<string, any[]>();
    for (const s of srs) srsOf.set(s.run_id, [...(srsOf.get(s.run_id) ?? []), s]);

    for (const r of runs) {
      if (!FINAL.includes(r.status)) v.push(`run ${r.id} ended the test ${r.status}`);
      // every scenario run counted exactly once: the counters equal the aggregate of the rows
      const mine = srsOf.get(r.id) ?? [];
      const n = tally(mine.map((s) => s.status));
      const unfinished = (n.pending ?? 0) + (n.running ?? 0) + (n.grading ?? 0);
      if (mine.length !== r.total_scenarios) v.push(`run ${r.id}: ${mine.length} scenario runs for total_scenarios ${r.total_scenarios}`);
      if (r.passed_count !== (n.passed ?? 0) || r.failed_count !== (n.failed ?? 0) || r.error_count !== (n.error ?? 0)) {
        v.push(`run ${r.id}: counts ${r.passed_count}/${r.failed_count}/${r.error_count} but scenario runs ${n.passed ?? 0}/${n.failed ?? 0}/${n.error ?? 0}`);
      }
      if (r.passed_count + r.failed_count + r.error_count + unfinished !== r.total_scenarios) v.push(`run ${r.id}: counts plus unfinished do not add up to ${r.total_scenarios}`);
      // a final run holds no conversation: only a canceled one may keep never-started (pending) rows
      if (FINAL.includes(r.status) && ((n.running ?? 0) + (n.grading ?? 0) > 0 || (r.status !== 'canceled' && unfinished > 0))) {
        v.push(`run ${r.id} is ${r.status} with scenario runs ${JSON.stringify(n)}`);
      }
      for (const s of mine) checkTranscript(s, r.max_turns, v);
      checkFaults(r, mine, v);
    }

    // one event per final run, one delivery per matching webhook, each event received at least once
    const eventsOf = new Map<string, any[]>();
    for (const e of events) eventsOf.set(e.run_id, [...(eventsOf.get(e.run_id) ?? []), e]);
    const deliveriesOf = new Map<string, any[]>();
    for (const d of deliveries) deliveriesOf.set(d.event_id, [...(deliveriesOf.get(d.event_id) ?? []), d]);
    const got = new Set(received.map((h) => `${h.path}|${h.headers['webhook-id']}`));
    for (const r of runs.filter((x) => FINAL.includes(x.status))) {
      const evs = eventsOf.get(r.id) ?? [];
      if (evs.length !== 1) { v.push(`run ${r.id} (${r.status}) has ${evs.length} events`); continue; }
      const e = evs[0];
      if (e.event !== EVENT_OF[r.status]) v.push(`run ${r.id} is ${r.status} but its event is ${e.event}`);
      const matching = hooks.filter((w) => w.is_active && w.org_id === r.org_id && (w.agent_id === null || w.agent_id === r.agent_id) && w.events.includes(e.event));
      const ds = deliveriesOf.get(e.id) ?? [];
      for (const w of hooks) {
        const count = ds.filter((d) => d.webhook_id === w.id).length;
        const want = matching.includes(w) ? 1 : 0;
        if (count !== want) v.push(`event ${e.id} (${e.event}): ${count} deliveries to webhook ${w.url}, expected ${want}`);
        if (want && !got.has(`${new URL(w.url).pathname}|${e.id}`)) v.push(`event ${e.id} (${e.event}) never reached ${w.url}`);
      }
    }
    checkAttempts(deliveries, attempts, hooks, received, v);
    return {
      violations: v,
      numbers: {
        runs: runs.length, runsByStatus: tally(runs.map((r) => r.status)), scenarioRuns: srs.length,
        scenarioRunsByStatus: tally(srs.map((s) => s.status)), takenOver: srs.filter((s) => s.attempts > 1).length,
        // attempts that did not count, by fault: takeovers are `internal`, the rest automatic re-attempts
        attemptsNotCounted: tally(srs.flatMap((s) => (s.attempt_history as Array<{ fault: string }>).map((a) => a.fault))),
        finalByFault: tally(srs.filter((s) => FINAL_SR.includes(s.status)).map((s) => s.fault ?? 'none')),
        events: events.length, deliveries: deliveries.length, webhookRequests: received.length,
        distinctEventsReceived: new Set(received.map((h) => h.headers['webhook-id'])).size,
        attempts: attempts.length, lostAttempts: attempts.filter((a) => a.error === LOST).length,
      },
    };
  } finally {
    await db.end();
  }
}

const LOST = 'worker lost during the attempt; outcome unknown';
const FINAL_SR = ['passed', 'failed', 'error'];
const FAULT_KINDS = ['agent', 'tester', 'judge', 'provider', 'internal', 'canceled'];

/**
 * Re-attempts counted once too: a run's fault counters and retried_count equal the aggregate of its final
 * scenario runs; a final scenario run is fault-free exactly when passed; every conversation started for one is
 * accounted for (attempts = 1 + the attempts that did not count), numbered 1..n.
 */
function checkFaults(r: any, mine: any[], v: string[]) {
  const final = mine.filter((s) => FINAL_SR.includes(s.status));
  const byFault = tally(final.map((s) => s.fault ?? 'none'));
  for (const f of FAULT_KINDS) {
    if (r[`fault_${f}`] !== (byFault[f] ?? 0)) v.push(`run ${r.id}: fault_${f} ${r[`fault_${f}`]} but ${byFault[f] ?? 0} final scenario runs with that fault`);
  }
  const retried = final.filter((s) => s.attempt_history.length > 0).length;
  if (r.retried_count !== retried) v.push(`run ${r.id}: retried_count ${r.retried_count} but ${retried} final scenario runs with attempts that did not count`);
  for (const s of final) {
    if ((s.status === 'passed') !== (s.fault === null)) v.push(`scenario run ${s.id} is ${s.status} with fault ${s.fault}`);
    const history = s.attempt_history as Array<{ attempt: number }>;
    // a scenario run ended before any conversation (a run failed fast or canceled) has no attempts at all
    if (s.attempts > 0 && s.attempts !== 1 + history.length) v.push(`scenario run ${s.id}: ${s.attempts} attempts but ${history.length} in its history`);
    if (history.some((a, i) => a.attempt !== i + 1)) v.push(`scenario run ${s.id}: attempts numbered ${history.map((a) => a.attempt).join(',')}`);
  }
}

/**
 * Every delivery settled; its attempts numbered 1..n without gaps, in time order, none left in flight;
 * and every request the receiver saw is in the history (a receiver may see fewer: refused or reset).
 */
function checkAttempts(deliveries: any[], attempts: any[], hooks: any[], received: ReceivedHook[], v: string[]) {
  const of = new Map<string, any[]>();
  for (const a of attempts) of.set(a.delivery_id, [...(of.get(a.delivery_id) ?? []), a]);
  const urlOf = new Map(hooks.map((w) => [w.id, new URL(w.url).pathname]));
  const requests = new Map<string, number>();
  for (const h of received) requests.set(`${h.path}|${h.headers['webhook-id']}`, (requests.get(`${h.path}|${h.headers['webhook-id']}`) ?? 0) + 1);
  for (const d of deliveries) {
    const as = of.get(d.id) ?? [];
    if (d.status === 'pending') v.push(`delivery ${d.id} is still pending`);
    if (as.length !== d.attempt_count) v.push(`delivery ${d.id}: attempt_count ${d.attempt_count} but ${as.length} attempts`);
    as.forEach((a, i) => {
      if (a.attempt !== i + 1) v.push(`delivery ${d.id}: attempts numbered ${as.map((x) => x.attempt).join(',')}`);
      if (i > 0 && a.attempted_at < as[i - 1].attempted_at) v.push(`delivery ${d.id}: attempt ${a.attempt} made before attempt ${as[i - 1].attempt}`);
      if (a.claim_token !== null) v.push(`delivery ${d.id}: attempt ${a.attempt} still in flight`);
    });
    const seen = requests.get(`${urlOf.get(d.webhook_id)}|${d.event_id}`) ?? 0;
    if (seen > as.length) v.push(`delivery ${d.id}: the receiver saw ${seen} requests, the history has ${as.length} attempts`);
  }
}

/**
 * How late automatic attempts went out. Due times: the event for attempt 1; for a later attempt, a
 * jittered schedule step (+10 %) after the previous one ended, or after a lost one started (its worker
 * died at some point after that, so this overstates lateness after a death). In seconds.
 */
export async function deliveryLateness(url: string, scheduleSec: number[]) {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query(`select a.delivery_id, a.attempt, a.attempted_at, a.duration_ms, a.error, a.trigger, e.created_at
      from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id join webhook_events e on e.id = d.event_id
      where e.run_id is not null order by a.delivery_id, a.attempt`);
    let worst = 0;
    let worstAfterLoss = 0;
    let auto = 0;
    let prev: any = null;
    for (const a of rows) {
      if (prev?.delivery_id !== a.delivery_id) { auto = 0; prev = null; }
      if (a.trigger !== 'automatic') continue;
      let due: number;
      if (auto === 0) due = a.created_at.getTime();
      else {
        const step = (scheduleSec[auto - 1] ?? 0) * 1100;
        due = prev.attempted_at.getTime() + (prev.error === LOST ? 0 : prev.duration_ms) + step;
      }
      const late = Math.max(0, a.attempted_at.getTime() - due) / 1000;
      worst = Math.max(worst, late);
      if (prev?.error === LOST) worstAfterLoss = Math.max(worstAfterLoss, late);
      auto++;
      prev = a;
    }
    return { worst_delivery_lateness_s: +worst.toFixed(1), worst_lateness_after_worker_loss_s: +worstAfterLoss.toFixed(1) };
  } finally {
    await db.end();
  }
}

/** No duplicate turns: roles alternate from the caller's first line, and there are at most max_turns of them. */
function checkTranscript(s: { id: string; transcript: Array<{ role: string }> }, maxTurns: number, v: string[]) {
  const t = s.transcript ?? [];
  for (let i = 0; i < t.length; i++) {
    const want = i % 2 === 0 ? 'user' : 'assistant';
    if (t[i].role !== want) { v.push(`scenario run ${s.id}: entry ${i} is ${t[i].role}, expected ${want} (roles: ${t.map((e) => e.role[0]).join('')})`); return; }
  }
  const turns = t.filter((e) => e.role === 'user').length;
  if (turns > maxTurns) v.push(`scenario run ${s.id}: ${turns} turns, max_turns ${maxTurns}`);
}

/** Whether every final run's event has reached every webhook it matches (the suite waits on this). */
export async function pendingEventIds(url: string, received: ReceivedHook[]): Promise<number> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query(`select d.event_id, w.url from webhook_deliveries d join webhooks w on w.id = d.webhook_id join webhook_events e on e.id = d.event_id where e.run_id is not null`);
    const got = new Set(received.map((h) => `${h.path}|${h.headers['webhook-id']}`));
    return rows.filter((r) => !got.has(`${new URL(r.url).pathname}|${r.event_id}`)).length;
  } finally {
    await db.end();
  }
}
