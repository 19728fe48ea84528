import { describe, expect, it } from 'vitest';
import { aggregateRunMetrics, completedTurns, conversationMetrics, percentile, RunMetricsAccumulator, turnDurations } from './metrics.js';
import type { ScenarioMetrics, TranscriptEntry } from './types.js';

const ts = '2026-11-21T15:07:08.346Z';
const u = (content = 'q'): TranscriptEntry => ({ role: 'user', content, timestamp: ts });
const a = (latency_ms: number | null, content = 'r'): TranscriptEntry => ({ role: 'assistant', content, timestamp: ts, latency_ms });

describe('conversationMetrics', () => {
  it('measures from the first tester message, not the greeting', () => {
    const t = [a(null, 'Hello'), u(), a(300), u(), a(500), u(), a(401)];
    expect(conversationMetrics({ transcript: t, durationMs: 2500.4, costUsd: 0.0123 })).toEqual({
      time_to_first_response_ms: 300,
      average_turn_duration_ms: 400,
      total_duration_ms: 2500,
      cost_usd: 0.0123,
      turn_count: 3,
    });
  });

  it('is null where nothing was measured', () => {
    expect(conversationMetrics({ transcript: [a(null)], durationMs: null, costUsd: null })).toEqual({
      time_to_first_response_ms: null, average_turn_duration_ms: null, total_duration_ms: null, cost_usd: null, turn_count: 0,
    });
  });

  it('counts only answered tester messages as turns', () => {
    expect(completedTurns([u(), a(1), u()])).toBe(1);
    expect(turnDurations([a(null), u(), a(7)])).toEqual([7]);
  });
});

describe('percentile', () => {
  it('interpolates between ranks', () => {
    expect(percentile([10], 0.95)).toBe(10);
    expect(percentile([100, 200], 0.5)).toBe(150);
    const s = Array.from({ length: 101 }, (_, i) => i * 10);
    expect(percentile(s, 0.5)).toBe(500);
    expect(percentile(s, 0.95)).toBe(950);
  });
});

describe('aggregateRunMetrics', () => {
  const m = (o: Partial<ScenarioMetrics>): ScenarioMetrics => ({
    time_to_first_response_ms: null, average_turn_duration_ms: null, total_duration_ms: null, cost_usd: null, turn_count: 0, ...o,
  });

  it('averages per-scenario metrics, takes percentiles over all turns, sums cost', () => {
    const items = [
      { metrics: m({ time_to_first_response_ms: 100, average_turn_duration_ms: 150, total_duration_ms: 1000, cost_usd: 0.01, turn_count: 2 }), turn_durations_ms: [100, 200] },
      { metrics: m({ time_to_first_response_ms: 300, average_turn_duration_ms: 350, total_duration_ms: 3000, cost_usd: null, turn_count: 3 }), turn_durations_ms: [300, 400, 350] },
      { metrics: m({ time_to_first_response_ms: null, total_duration_ms: 500, cost_usd: 0.03, turn_count: 0 }), turn_durations_ms: [] },
    ];
    expect(aggregateRunMetrics(items)).toEqual({
      time_to_first_response_ms: 200,
      average_turn_duration_ms: 250,
      total_duration_ms: 1500,
      cost_usd: 0.02,
      turn_count: 1.67,
      p50_turn_duration_ms: 300,
      p95_turn_duration_ms: 390,
      total_cost_usd: 0.04,
    });
  });

  it('is all null with nothing to aggregate', () => {
    expect(aggregateRunMetrics([])).toEqual({
      time_to_first_response_ms: null, average_turn_duration_ms: null, total_duration_ms: null, cost_usd: null,
      turn_count: null, p50_turn_duration_ms: null, p95_turn_duration_ms: null, total_cost_usd: null,
    });
  });

  it('incremental accumulation equals the batch result', () => {
    const items = Array.from({ length: 20 }, (_, i) => ({
      metrics: m({ time_to_first_response_ms: i * 7, average_turn_duration_ms: i * 11, total_duration_ms: i * 100, cost_usd: i % 3 ? i / 1000 : null, turn_count: i % 5 }),
      turn_durations_ms: Array.from({ length: i % 5 }, (_, j) => (i * 37 + j * 13) % 900),
    }));
    const acc = new RunMetricsAccumulator();
    items.forEach((it, i) => {
      acc.add(it);
      if (i === 9) expect(acc.result()).toEqual(aggregateRunMetrics(items.slice(0, 10)));
    });
    expect(acc.result()).toEqual(aggregateRunMetrics(items));
  });
});
