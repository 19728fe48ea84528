import { Field } from '../components/ui';
import type { ToolMode, ToolsDraft } from '../agentTools';

// The agent's tool names and aliases, which tool checks resolve template tool names through.

export function AgentToolsFields({ draft, onChange, isNew }: { draft: ToolsDraft; onChange: (d: ToolsDraft) => void; isNew: boolean }) {
  return (
    <fieldset className="config">
      <legend>Tools</legend>
      <Field label="Tool names" hint="Tool checks are decided only for tools the agent is known to have (or called). With unknown tools, a check such as “does not call issue_refund” stays UNSURE.">
        {(id, hint) => (
          <select id={id} aria-describedby={hint} value={draft.mode} onChange={(e) => onChange({ ...draft, mode: e.target.value as ToolMode })}>
            {isNew && <option value="default">Default (provider_4: the tools in its config; others: unknown)</option>}
            <option value="unknown">Unknown</option>
            <option value="none">The agent has no tools</option>
            <option value="list">These tools…</option>
          </select>
        )}
      </Field>
      {draft.mode === 'list' && (
        <Field label="The agent's tool names" hint="Separated by commas or spaces.">
          {(id, hint) => <input id={id} aria-describedby={hint} className="mono" spellCheck={false} value={draft.names} onChange={(e) => onChange({ ...draft, names: e.target.value })} />}
        </Field>
      )}
      <Field label="Tool aliases" hint='JSON: template tool name → this agent’s tool name, or null for “this agent has no such tool”, e.g. {"issue_refund": "refund_payment"}.'>
        {(id, hint) => <textarea id={id} aria-describedby={hint} rows={3} className="mono" spellCheck={false} value={draft.aliases} onChange={(e) => onChange({ ...draft, aliases: e.target.value })} />}
      </Field>
    </fieldset>
  );
}
