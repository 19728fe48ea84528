import { useState, type FormEvent } from 'react';
import { post } from '../api';
import { ErrorNote, Field } from '../components/ui';
import { useAction } from '../hooks';
import type { Agent, TestSuite } from '../types';

interface Props {
  agents: Agent[];
  suites: TestSuite[];
  defaultAgentId?: string;
  onStarted: (run: { id: string; test_run_id: string }) => void;
  onCancel: () => void;
}

export function StartRunForm({ agents, suites, defaultAgentId, onStarted, onCancel }: Props) {
  const active = agents.filter((a) => a.is_active);
  const [agentId, setAgentId] = useState(defaultAgentId && active.some((a) => a.id === defaultAgentId) ? defaultAgentId : active[0]?.id ?? '');
  const [suiteId, setSuiteId] = useState(suites.find((s) => s.is_default)?.id ?? suites[0]?.id ?? '');
  const [mode, setMode] = useState<'demo' | 'full'>('demo');
  const [maxTurns, setMaxTurns] = useState('4');
  const [maxScenarios, setMaxScenarios] = useState('');
  const [name, setName] = useState('');
  const start = useAction((body: Record<string, unknown>) => post<{ id: string; test_run_id: string }>('/runs', body));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body: Record<string, unknown> = { agent_id: agentId, test_mode: mode, max_turns: Number(maxTurns) };
    if (suiteId) body.test_suite_id = suiteId;
    if (maxScenarios.trim()) body.max_scenarios = Number(maxScenarios);
    if (name.trim()) body.name = name.trim();
    const run = await start.run(body);
    if (run) onStarted(run);
  };

  return (
    <form className="card form-grid" onSubmit={submit} aria-labelledby="start-run-title">
      <h2 id="start-run-title">Start a run</h2>
      <Field label="Agent" required hint={active.length < agents.length ? 'Inactive agents are not listed.' : undefined}>
        {(id, hint) => (
          <select id={id} aria-describedby={hint} required value={agentId} onChange={(e) => setAgentId(e.target.value)}>
            {active.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
          </select>
        )}
      </Field>
      <Field label="Suite" hint="Which scenarios to run, in the suite's order.">
        {(id, hint) => (
          <select id={id} aria-describedby={hint} value={suiteId} onChange={(e) => setSuiteId(e.target.value)}>
            {suites.map((s) => <option key={s.id} value={s.id}>{s.name} ({s.scenario_count} scenarios)</option>)}
          </select>
        )}
      </Field>
      <fieldset className="radios">
        <legend>Mode</legend>
        <label><input type="radio" name="mode" value="demo" checked={mode === 'demo'} onChange={() => setMode('demo')} /> Demo: the first 20 scenarios</label>
        <label><input type="radio" name="mode" value="full" checked={mode === 'full'} onChange={() => setMode('full')} /> Full: every scenario of the suite</label>
      </fieldset>
      <Field label="Max turns" hint="Tester messages per conversation, 1 to 50.">
        {(id, hint) => <input id={id} aria-describedby={hint} type="number" min={1} max={50} required value={maxTurns} onChange={(e) => setMaxTurns(e.target.value)} />}
      </Field>
      <Field label="Max scenarios" hint="Optional cap on top of the mode.">
        {(id, hint) => <input id={id} aria-describedby={hint} type="number" min={1} value={maxScenarios} onChange={(e) => setMaxScenarios(e.target.value)} />}
      </Field>
      <Field label="Run name" hint="Optional; default “suite · agent”.">
        {(id, hint) => <input id={id} aria-describedby={hint} value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <ErrorNote error={start.error} title="The run was not started" />
      <div className="actions">
        <button type="submit" className="btn primary" disabled={start.busy || !agentId}>{start.busy ? 'Starting…' : 'Start run'}</button>
        <button type="button" className="btn" onClick={onCancel}>Close</button>
      </div>
    </form>
  );
}
