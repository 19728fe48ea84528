import { eq, inArray } from 'drizzle-orm';
import { agents, scenarios } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { decideOutcome } from '../../engine/outcome.js';
import { resultWithoutConversation, runScenario, type ScenarioRunResult } from '../../engine/scenario-runner.js';
import type { ScenarioSpec } from '../../engine/types.js';
import type { JobQueue } from '../../jobs/queue.js';
import { Coalescer } from '../../lib/coalescer.js';
import { GroupCommit } from '../../lib/group-commit.js';
import { createLlmClient } from '../../lib/llm-client.js';
import { TtlCache } from '../../lib/ttl-cache.js';
import type { ProviderId } from '../../engine/provider.js';
import { agentConfig, agentTools } from '../agents/agents.service.js';
import { enqueueNext, sendScenarioRun } from './enqueue.js';
import type { LocalRuns } from './local-runs.js';
import type { Admission } from './admission.js';
import { claimScenarioRuns, releaseHeld, type Claimed, type Lease } from './run-store/claims.js';
import { failRunFast, finishScenarioRuns, markGrading, type FinishItem } from './run-store/finish.js';
import { toScenarioSpec } from './scenario-spec.js';
import { TranscriptWriter } from './transcript-writer.js';

const CACHE_TTL_MS = 30_000;
type Log = { error(obj: unknown, msg: string): void };

export interface Conductor {
  /** One scenario-run job: claim → load → converse → finish, hand back, or fail the run fast. */
  handle(payload: { scenario_run_id: string }): Promise<void>;
  /** Scenario runs whose conversation is in this process's hands: the heartbeat renews these leases only. */
  held: ReadonlySet<string>;
  /** Writes what is buffered; call once no conversation is left. */
  close(): Promise<void>;
}

export function createConductor(deps: Deps, queue: JobQueue, local: LocalRuns, lease: Lease, log: Log, isShuttingDown: () => boolean, admission?: Admission): Conductor {
  const llm = {
    ...deps.config.llm,
    voiceTesterModel: deps.config.voiceTesterModel,
    judgeConfirmations: deps.config.judgeConfirmations,
    client: deps.config.llm.baseUrl ? createLlmClient({ baseUrl: deps.config.llm.baseUrl, apiKey: deps.config.llm.apiKey, clock: deps.clock }) : undefined,
  };
  const writer = new TranscriptWriter(deps.db, 100, (err) => log.error({ err }, 'transcript flush failed'));
  const held = new Set<string>();

  // Every conversation of a run needs the same agent and templates: read them once per process and
  // keep them briefly, so the per-conversation path does not query them (an edit shows within the TTL).
  const agentCache = new TtlCache<typeof agents.$inferSelect | null>(CACHE_TTL_MS, () => deps.clock.now());
  const scenarioCache = new TtlCache<ScenarioSpec | null>(CACHE_TTL_MS, () => deps.clock.now());
  const loadAgent = (id: string) => agentCache.get(id, async () => (await deps.db.orm.select().from(agents).where(eq(agents.id, id)))[0] ?? null);
  const scenarioBatch = new Coalescer<string, Map<string, typeof scenarios.$inferSelect>>(async (ids) =>
    new Map((await deps.db.orm.select().from(scenarios).where(inArray(scenarios.id, [...new Set(ids)]))).map((r) => [r.id, r])));
  const loadScenario = (id: string) => scenarioCache.get(id, async () => {
    const row = (await scenarioBatch.add(id)).get(id);
    return row ? toScenarioSpec(row) : null;
  });

  // Jobs arrive in bursts (a run's whole window at once): their claims share one statement.
  const claimBatch = new Coalescer<string, Map<string, Claimed>>((ids) => claimScenarioRuns(deps, ids, lease));
  // Conversations end in bursts too: their results and grading marks are written in group commits.
  const finishBatch = new GroupCommit<FinishItem, boolean>((items) => finishScenarioRuns(deps, items,
    (tx, runId, k) => enqueueNext(deps, queue, tx, runId, k), (tx, sr) => sendScenarioRun(deps, queue, tx, sr)));
  const gradingBatch = new GroupCommit<{ id: string; owner: string }, void>((items) => markGrading(deps, items));

  async function handle(payload: { scenario_run_id: string }) {
    const claimed = (await claimBatch.add(payload.scenario_run_id)).get(payload.scenario_run_id) ?? null;
    if (!claimed) return;
    held.add(claimed.sr.id);
    try {
      await conduct(claimed);
    } finally {
      held.delete(claimed.sr.id);
    }
  }

  async function conduct({ sr, run }: Claimed) {
    const agent = await loadAgent(run.agentId);
    if (!agent || agent.deletedAt) {
      await failRunFast(deps, run.id, decideOutcome({ event: 'agent_deleted' }));
      return;
    }
    const adapter = deps.adapters[agent.provider as ProviderId];
    if (!adapter) {
      await failRunFast(deps, run.id, decideOutcome({ event: 'no_adapter', provider: agent.provider }));
      return;
    }
    const scenario = await loadScenario(sr.scenarioId);
    const controller = local.hold(run.id);
    const elapsed = () => deps.clock.now() - (sr.startedAt?.getTime() ?? deps.clock.now());
    let result: ScenarioRunResult;
    try {
      result = !scenario ? resultWithoutConversation(decideOutcome({ event: 'scenario_missing' }), elapsed()) : await runScenario({
        scenario, maxTurns: run.maxTurns, adapter, config: agentConfig(deps, agent), llm, clock: deps.clock, signal: controller.signal,
        tools: agentTools(agent), lag: deps.lag, onReplyTimed: admission && ((u) => admission.observe(u)),
        ids: { runId: run.id, scenarioRunId: sr.id },
        onEntry: (entry) => writer.append(sr.id, lease.owner, entry),
        // not awaited: the judge need not wait for a status write; a late write is a no-op on a final row
        onGrading: () => { gradingBatch.add({ id: sr.id, owner: lease.owner }).catch((err) => log.error({ err }, 'grading status write failed')); },
      });
    } catch (err) {
      result = resultWithoutConversation(decideOutcome({ event: 'thrown', error: err }), elapsed());
    } finally {
      local.release(run.id, controller);
      writer.discard(sr.id);
    }
    if (isShuttingDown() && controller.signal.aborted) {
      await handBack(sr);
      return;
    }
    observe(agent.provider, result);
    const { outcome } = result;
    if (outcome.status === 'error' && outcome.fatal) {
      await failRunFast(deps, run.id, outcome);
      local.abortRun(run.id, 'run failed');
      return;
    }
    await finishBatch.add({ id: sr.id, runId: run.id, owner: lease.owner, result });
  }

  function observe(provider: string, r: ScenarioRunResult) {
    const m = deps.metrics;
    if (!m) return;
    const o = r.outcome;
    m.scenarioOutcomes.inc({ status: o.status });
    for (const e of r.transcript) if (e.role === 'assistant' && typeof e.latency_ms === 'number') m.providerReply.observe({ provider }, e.latency_ms / 1000);
    if (o.side === 'provider') m.providerErrors.inc({ provider, kind: o.fatal ?? (o.provider_status === null ? 'other' : String(o.provider_status)) });
  }

  /** A conversation interrupted by our own shutdown goes back to the queue for another worker. */
  async function handBack(sr: Claimed['sr']) {
    await deps.db.transaction(async (tx) => {
      if (await releaseHeld(tx, sr.id, lease.owner, new Date(deps.clock.now()))) await sendScenarioRun(deps, queue, tx, sr);
    });
  }

  return { handle, held, close: () => writer.close() };
}
