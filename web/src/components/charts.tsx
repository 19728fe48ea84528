import { Area, Bar, BarChart, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { fmtDateTime, fmtMs } from '../format';
import type { Run, ScenarioResult } from '../types';

// Each chart comes with its numbers as a table (in a disclosure), so the data is reachable by keyboard and
// screen reader, not only as pixels.

const AXIS = { stroke: '#4b5563', fontSize: 12 };

export function PassRateChart({ runs, title }: { runs: Run[]; title: string }) {
  const points = runs
    .filter((r) => r.status === 'completed')
    .sort((a, b) => a.started_at.localeCompare(b.started_at))
    .map((r) => {
      const ci = r.stats?.pass_rate_ci ?? null;
      return { label: r.test_run_id, when: fmtDateTime(r.started_at), pass_rate: r.pass_rate, ci: ci ? [ci.low, ci.high] : null, ciText: ci ? `${ci.low}–${ci.high}%` : '—' };
    });
  if (points.length === 0) return <p className="muted">The pass rate over time appears here once a run of this agent has completed.</p>;
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div className="chart-box" aria-hidden="true">
        <ResponsiveContainer width="100%" height={220} initialDimension={{ width: 600, height: 220 }}>
          <ComposedChart data={points} margin={{ top: 8, right: 16, bottom: 8, left: 0 }} accessibilityLayer={false}>
            <CartesianGrid stroke="#e5e7eb" />
            <XAxis dataKey="label" tick={AXIS} />
            <YAxis domain={[0, 100]} unit="%" tick={AXIS} width={48} />
            <Tooltip formatter={(v, name) => (name === 'ci' ? [Array.isArray(v) ? `${v[0]}–${v[1]}%` : '—', '95% interval'] : [`${v}%`, 'Pass rate'])}
              labelFormatter={(l, p) => `${l} · ${p?.[0]?.payload?.when ?? ''}`} />
            {/* the band: where the pass rate could plausibly be, given how few and how correlated the attempts were */}
            <Area type="monotone" dataKey="ci" stroke="none" fill="#93c5fd" fillOpacity={0.45} isAnimationActive={false} connectNulls />
            <Line type="monotone" dataKey="pass_rate" stroke="#1d4ed8" strokeWidth={2} dot={{ r: 3 }} isAnimationActive={false} />
          </ComposedChart>
        </ResponsiveContainer>
      </div>
      <details>
        <summary>Pass rate data</summary>
        <table>
          <thead><tr><th scope="col">Run</th><th scope="col">Started</th><th scope="col">Pass rate</th><th scope="col">95% interval</th></tr></thead>
          <tbody>{points.map((p) => <tr key={p.label}><td>{p.label}</td><td>{p.when}</td><td>{p.pass_rate}%</td><td>{p.ciText}</td></tr>)}</tbody>
        </table>
      </details>
    </figure>
  );
}

/** Buckets of the scenarios' average reply latency: where most replies land and how long the tail is. */
export function latencyBuckets(values: number[], buckets = 8) {
  if (values.length === 0) return [];
  const min = Math.min(...values);
  const max = Math.max(...values);
  // round bucket edges to tens of ms, starting at the fastest scenario rather than at zero
  const step = Math.max(10, Math.ceil((max - min) / buckets / 10) * 10);
  const lo = Math.floor(min / step) * step;
  const out = Array.from({ length: Math.floor((max - lo) / step) + 1 }, (_, i) => ({ label: `${lo + i * step}–${lo + (i + 1) * step} ms`, count: 0 }));
  for (const v of values) out[Math.min(out.length - 1, Math.floor((v - lo) / step))].count++;
  return out;
}

export function LatencyChart({ results }: { results: ScenarioResult[] }) {
  const values = results.map((r) => r.metrics?.average_turn_duration_ms).filter((v): v is number => typeof v === 'number');
  if (values.length === 0) return <p className="muted">The latency distribution appears once scenarios have finished conversations.</p>;
  const data = latencyBuckets(values);
  return (
    <figure className="chart">
      <figcaption>Average reply latency per scenario ({values.length} scenarios; median {fmtMs(median(values))})</figcaption>
      <div className="chart-box" aria-hidden="true">
        <ResponsiveContainer width="100%" height={220} initialDimension={{ width: 600, height: 220 }}>
          <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }} accessibilityLayer={false}>
            <CartesianGrid stroke="#e5e7eb" vertical={false} />
            <XAxis dataKey="label" tick={AXIS} />
            <YAxis allowDecimals={false} tick={AXIS} width={40} />
            <Tooltip formatter={(v) => [v, 'Scenarios']} />
            <Bar dataKey="count" fill="#1d4ed8" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <details>
        <summary>Latency data</summary>
        <table>
          <thead><tr><th scope="col">Average reply latency</th><th scope="col">Scenarios</th></tr></thead>
          <tbody>{data.map((d) => <tr key={d.label}><td>{d.label}</td><td>{d.count}</td></tr>)}</tbody>
        </table>
      </details>
    </figure>
  );
}

function median(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
