import { and, eq, inArray } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { Tx } from '../../db/client.js';
import { agents, scenarioRuns, scenarios } from '../../db/schema.js';
import type { Deps, RunHooks } from '../../deps.js';
import { runScenario, type ScenarioRunResult } from '../../engine/scenario-runner.js';
import { normalizeCriterion, type CriterionInput, type ScenarioSpec } from '../../engine/types.js';
import { JOBS } from '../../jobs/catalog.js';
import type { JobQueue } from '../../jobs/queue.js';
import { Dispatcher } from '../../jobs/worker.js';
import { listenForWork, notifyWork } from '../../jobs/wakeup.js';
import { createLlmClient } from '../../lib/llm-client.js';
import type { ProviderId } from '../../providers/types.js';
import { agentConfig } from '../agents/agents.service.js';
import {
  claimScenarioRuns, failRunFast, finalRunIds, reapExpiredLeases, renewLeases, takeNextToEnqueue,
  type Claimed, type Lease, type ScenarioRunRow,
} from './run-execution.js';
import { TranscriptWriter } from './transcript-writer.js';
import { finishScenarioRuns, markGradingBatch, type FinishItem } from './finish-batch.js';
import { GroupCommit } from '../../lib/group-commit.js';

export interface EngineOptions {
  leaseMs: number;
  heartbeatMs: number;
  reapIntervalMs: number;
  cancelPollMs: number;
  pollIntervalMs: number;
}

export const DEFAULT_ENGINE_OPTIONS: EngineOptions = { leaseMs: 30_000, heartbeatMs: 10_000, reapIntervalMs: 5_000, cancelPollMs: 1_000, pollIntervalMs: 250 };

const CACHE_TTL_MS = 30_000;

class TtlCache<T> {
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

/** Gathers the calls made in one turn of the event loop into one batch call. */
class Coalescer<K, R> {
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

export interface RunEngine {
  hooks: RunHooks;
  startWorker(): void;
  stop(): Promise<void>;
  /** Conversations this process is holding right now. */
  inFlight(): number;
}

/**
 * Executes runs: every scenario run is a pg-boss job; a run keeps at most REHEARSAL_SCENARIO_CONCURRENCY
 * of them enqueued at once (each finished one enqueues the next, in the same transaction).
 * Workers hold a renewable lease on each conversation, so a killed worker's conversations are taken
 * over by another once the lease runs out.
 */
export function createRunEngine(deps: Deps, queue: JobQueue, log: { error(obj: unknown, msg: string): void }, opts: Partial<EngineOptions> = {}): RunEngine {
  // the lease comes from configuration; renewal and reaping run well inside it
  const leaseMs = deps.config.workerLeaseMs;
  const o = { ...DEFAULT_ENGINE_OPTIONS, leaseMs, heartbeatMs: Math.floor(leaseMs / 3), reapIntervalMs: Math.min(5000, Math.floor(leaseMs / 2)), ...opts };
  const lease: Lease = { owner: `${process.pid}-${uuidv7()}`, ms: o.leaseMs };
  const llm = {
    ...deps.config.llm,
    client: deps.config.llm.baseUrl ? createLlmClient({ baseUrl: deps.config.llm.baseUrl, apiKey: deps.config.llm.apiKey, clock: deps.clock }) : undefined,
  };
  const writer = new TranscriptWriter(deps.db, 100, (err) => log.error({ err }, 'transcript flush failed'));
  const byRun = new Map<string, Set<AbortController>>();
  // scenario runs whose conversation is in this process's hands: the heartbeat renews these leases only
  const held = new Set<string>();
  const timers: NodeJS.Timeout[] = [];
  const stopHooks: Array<() => Promise<void>> = [];
  let dispatcher: Dispatcher<typeof JOBS.scenarioRun.payload> | null = null;
  let shuttingDown = false;

  const send = async (tx: Tx, sr: Pick<ScenarioRunRow, 'id' | 'runId' | 'orgId'>) => {
    await queue.send(tx, JOBS.scenarioRun, { scenario_run_id: sr.id, run_id: sr.runId, org_id: sr.orgId });
    if (deps.db.kind === 'postgres') await notifyWork(tx);
  };

  const enqueueNext = async (tx: Tx, runId: string, n: number) => {
    for (const sr of await takeNextToEnqueue(tx, runId, n)) await send(tx, sr);
  };

  const abortRun = (runId: string, reason: string) => {
    for (const c of byRun.get(runId) ?? []) c.abort(new Error(reason));
  };

  // Every conversation of a run needs the same agent and templates: read them once per process and
  // keep them briefly, so the per-conversation path does not query them (an edit shows within the TTL).
  const agentCache = new TtlCache<typeof agents.$inferSelect | null>(CACHE_TTL_MS, () => deps.clock.now());
  const scenarioCache = new TtlCache<ScenarioSpec | null>(CACHE_TTL_MS, () => deps.clock.now());
  const loadAgent = (id: string) => agentCache.get(id, async () => (await deps.db.orm.select().from(agents).where(eq(agents.id, id)))[0] ?? null);
  const scenarioBatch = new Coalescer<string, Map<string, typeof scenarios.$inferSelect>>(async (ids) =>
    new Map((await deps.db.orm.select().from(scenarios).where(inArray(scenarios.id, [...new Set(ids)]))).map((r) => [r.id, r])));
  const loadScenario = (id: string) => scenarioCache.get(id, async () => toSpec((await scenarioBatch.add(id)).get(id)));

  function toSpec(s: typeof scenarios.$inferSelect | undefined): ScenarioSpec | null {
    if (!s) return null;
    return {
      id: s.id, name: s.name, persona: s.persona, goal: s.goal, instructions: s.instructions, opening_message: s.openingMessage,
      script: s.script, criteria: (s.criteria as CriterionInput[]).map(normalizeCriterion), pass_threshold: s.passThreshold, max_turns: s.maxTurns,
    };
  }

  // Jobs arrive in bursts (a run's whole window at once): their claims share one statement.
  const claimBatch = new Coalescer<string, Awaited<ReturnType<typeof claimScenarioRuns>>>(
    (ids) => claimScenarioRuns(deps, ids, lease),
  );

  // Conversations end in bursts too: their results and grading marks are written in group commits.
  const finishBatch = new GroupCommit<FinishItem, boolean>((items) => finishScenarioRuns(deps, items, enqueueNext));
  const gradingBatch = new GroupCommit<{ id: string; owner: string }, void>((items) => markGradingBatch(deps, items));

  async function handle(payload: { scenario_run_id: string }) {
    const claimed = (await claimBatch.add(payload.scenario_run_id)).get(payload.scenario_run_id) ?? null;
    if (!claimed) return;
    const { sr, run } = claimed;
    held.add(sr.id);
    try {
      await conduct(sr, run);
    } finally {
      held.delete(sr.id);
    }
  }

  async function conduct(sr: Claimed['sr'], run: Claimed['run']) {
    const agent = await loadAgent(run.agentId);
    if (!agent || agent.deletedAt) {
      await failRunFast(deps, run.id, 'provider: the agent was deleted');
      return;
    }
    const adapter = deps.adapters[agent.provider as ProviderId];
    if (!adapter) {
      await failRunFast(deps, run.id, `provider: no adapter for ${agent.provider} in this build`);
      return;
    }
    const scenario = await loadScenario(sr.scenarioId);
    const controller = new AbortController();
    let set = byRun.get(run.id);
    if (!set) byRun.set(run.id, (set = new Set()));
    set.add(controller);
    let result: ScenarioRunResult;
    try {
      if (!scenario) throw new Error('the scenario template no longer exists');
      result = await runScenario({
        scenario, maxTurns: run.maxTurns, adapter, config: agentConfig(deps, agent), llm, clock: deps.clock, signal: controller.signal,
        ids: { runId: run.id, scenarioRunId: sr.id },
        onEntry: (entry) => writer.append(sr.id, lease.owner, entry),
        // not awaited: the judge need not wait for a status write; a late write is a no-op on a final row
        onGrading: () => { gradingBatch.add({ id: sr.id, owner: lease.owner }).catch((err) => log.error({ err }, 'grading status write failed')); },
      });
    } catch (err) {
      result = internalError(err, deps.clock.now() - (sr.startedAt?.getTime() ?? deps.clock.now()));
    } finally {
      set.delete(controller);
      if (set.size === 0) byRun.delete(run.id);
      writer.discard(sr.id);
    }
    if (shuttingDown && controller.signal.aborted) {
      await handBack(sr);
      return;
    }
    if (result.fatal) {
      observe(agent.provider, result);
      await failRunFast(deps, run.id, result.error_message ?? 'provider: credentials rejected');
      abortRun(run.id, 'run failed');
      return;
    }
    observe(agent.provider, result);
    await finishBatch.add({ id: sr.id, runId: run.id, owner: lease.owner, result });
  }

  function observe(provider: string, r: ScenarioRunResult) {
    const m = deps.metrics;
    if (!m) return;
    m.scenarioOutcomes.inc({ status: r.status });
    for (const e of r.transcript) if (e.role === 'assistant' && typeof e.latency_ms === 'number') m.providerReply.observe({ provider }, e.latency_ms / 1000);
    if (r.error_message?.startsWith('provider:')) m.providerErrors.inc({ provider, kind: r.fatal ?? (/^provider: (\d{3})/.exec(r.error_message)?.[1] ?? 'other') });
  }

  /** A conversation interrupted by our own shutdown goes back to the queue for another worker. */
  async function handBack(sr: Pick<ScenarioRunRow, 'id' | 'runId' | 'orgId'>) {
    await deps.db.transaction(async (tx) => {
      const released = await tx.orm.update(scenarioRuns).set({ leaseOwner: null })
        .where(and(eq(scenarioRuns.id, sr.id), eq(scenarioRuns.leaseOwner, lease.owner), inArray(scenarioRuns.status, ['running', 'grading'])))
        .returning({ id: scenarioRuns.id });
      if (released.length > 0) await send(tx, sr);
    });
  }

  return {
    hooks: {
      enqueueRun: (tx, runId) => enqueueNext(tx, runId, deps.config.scenarioConcurrency),
      afterRunCreated: () => dispatcher?.wake(),
      afterRunCanceled: (runId) => abortRun(runId, 'run canceled'),
    },
    startWorker() {
      dispatcher = new Dispatcher({
        queue, job: JOBS.scenarioRun, concurrency: deps.config.workerConcurrency, pollIntervalMs: o.pollIntervalMs,
        handle, onError: (err, context) => log.error({ err, context }, 'scenario job failed'),
      });
      dispatcher.start();
      deps.metrics?.setInFlight(() => dispatcher?.activeCount ?? 0);
      if (deps.config.databaseUrl) {
        const stopListening = listenForWork(deps.config.databaseUrl, () => dispatcher?.wake(), (err) => log.error({ err }, 'work listener'));
        stopHooks.push(stopListening);
      }
      const every = (ms: number, fn: () => Promise<unknown>, what: string) => {
        let busy = false;
        const t = setInterval(() => {
          if (busy) return;
          busy = true;
          fn().catch((err) => log.error({ err }, what)).finally(() => { busy = false; });
        }, ms);
        t.unref();
        timers.push(t);
      };
      every(o.heartbeatMs, () => renewLeases(deps, lease, [...held]), 'lease renewal failed');
      every(o.reapIntervalMs, async () => {
        if ((await reapExpiredLeases(deps, send)) > 0) dispatcher?.wake();
      }, 'lease reaper failed');
      // another process may end a run (cancel, fail fast): stop our conversations of it promptly
      every(o.cancelPollMs, async () => {
        for (const id of await finalRunIds(deps, [...byRun.keys()])) abortRun(id, 'run canceled');
      }, 'cancel poll failed');
    },
    async stop() {
      for (const t of timers) clearInterval(t);
      timers.length = 0;
      shuttingDown = true;
      // conversations in hand end now and are handed back to the queue
      for (const runId of [...byRun.keys()]) abortRun(runId, 'worker shutting down');
      await dispatcher?.stop();
      await writer.close();
      for (const stop of stopHooks) await stop();
    },
    inFlight: () => dispatcher?.activeCount ?? 0,
  };
}

function internalError(err: unknown, durationMs: number): ScenarioRunResult {
  return {
    status: 'error', passed: null, grade_summary: null, score: null, criteria_results: [], transcript: [],
    error_message: `internal: ${(err as Error)?.message ?? String(err)}`, duration_ms: Math.max(0, durationMs),
    metrics: { time_to_first_response_ms: null, average_turn_duration_ms: null, total_duration_ms: null, cost_usd: null, turn_count: 0 },
    turn_durations_ms: [], tester_model: null, judge_model: null, end_reason: null, fatal: null,
  };
}
