import type { RunMetrics, ScenarioMetrics, TranscriptEntry } from './types.js';

// Conversation metrics (turns, latencies, durations, cost). Per conversation from the transcript; per run from stored per-scenario metrics plus the
// turn durations, so a run's aggregate can be rebuilt from rows at any time, or kept up as scenarios finish.

const roundMs = (n: number) => Math.round(n);
const roundUsd = (n: number) => Math.round(n * 1e8) / 1e8;

/** Tester-message → reply times, in order; the greeting is not a turn and carries no latency. */
export function turnDurations(transcript: readonly TranscriptEntry[]): number[] {
  const out: number[] = [];
  for (const e of transcript) if (e.role === 'assistant' && typeof e.latency_ms === 'number') out.push(e.latency_ms);
  return out;
}

/** Turns completed: tester messages the agent replied to. */
export function completedTurns(transcript: readonly TranscriptEntry[]): number {
  let n = 0;
  let waiting = false;
  for (const e of transcript) {
    if (e.role === 'user') waiting = true;
    else if (waiting) {
      n++;
      waiting = false;
    }
  }
  return n;
}

export function conversationMetrics(input: {
  transcript: readonly TranscriptEntry[];
  durationMs: number | null;
  costUsd: number | null;
}): ScenarioMetrics {
  const d = turnDurations(input.transcript);
  return {
    time_to_first_response_ms: d.length ? roundMs(d[0]) : null,
    average_turn_duration_ms: d.length ? roundMs(d.reduce((s, x) => s + x, 0) / d.length) : null,
    total_duration_ms: input.durationMs === null ? null : roundMs(input.durationMs),
    cost_usd: input.costUsd === null ? null : roundUsd(input.costUsd),
    turn_count: completedTurns(input.transcript),
  };
}

/** Linear interpolation between closest ranks; `sorted` ascending and non-empty. */
export function percentile(sorted: readonly number[], p: number): number {
  const idx = p * (sorted.length - 1);
  const lo = Math.floor(idx);
  const hi = Math.ceil(idx);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (idx - lo);
}

class Mean {
  sum = 0;
  n = 0;
  add(v: number | null) {
    if (v === null) return;
    this.sum += v;
    this.n++;
  }
  get value(): number | null {
    return this.n ? this.sum / this.n : null;
  }
}

export interface RunMetricsItem {
  metrics: ScenarioMetrics;
  turn_durations_ms: readonly number[];
}

/** Keeps a run's aggregate up to date one finished scenario at a time. */
export class RunMetricsAccumulator {
  private readonly ttfr = new Mean();
  private readonly avgTurn = new Mean();
  private readonly total = new Mean();
  private readonly cost = new Mean();
  private readonly turns = new Mean();
  private readonly durations: number[] = [];

  add(item: RunMetricsItem): this {
    const m = item.metrics;
    this.ttfr.add(m.time_to_first_response_ms);
    this.avgTurn.add(m.average_turn_duration_ms);
    this.total.add(m.total_duration_ms);
    this.cost.add(m.cost_usd);
    this.turns.add(m.turn_count);
    for (const d of item.turn_durations_ms) this.durations.push(d);
    return this;
  }

  result(): RunMetrics {
    const ms = (v: number | null) => (v === null ? null : roundMs(v));
    const sorted = this.durations.length ? [...this.durations].sort((a, b) => a - b) : null;
    return {
      time_to_first_response_ms: ms(this.ttfr.value),
      average_turn_duration_ms: ms(this.avgTurn.value),
      total_duration_ms: ms(this.total.value),
      cost_usd: this.cost.value === null ? null : roundUsd(this.cost.value),
      turn_count: this.turns.value === null ? null : Math.round(this.turns.value * 100) / 100,
      p50_turn_duration_ms: sorted ? roundMs(percentile(sorted, 0.5)) : null,
      p95_turn_duration_ms: sorted ? roundMs(percentile(sorted, 0.95)) : null,
      total_cost_usd: this.cost.n ? roundUsd(this.cost.sum) : null,
    };
  }
}

export function aggregateRunMetrics(items: readonly RunMetricsItem[]): RunMetrics {
  const acc = new RunMetricsAccumulator();
  for (const item of items) acc.add(item);
  return acc.result();
}
