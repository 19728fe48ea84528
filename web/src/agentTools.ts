// The agent form's Tools section as data: what the form sends for each choice, and how it reads an agent
// back. "Default" (new agents only) leaves tool_names to the service: the names in config.tools for provider_4,
// else unknown.

export type ToolMode = 'default' | 'unknown' | 'none' | 'list';

export interface ToolsDraft {
  mode: ToolMode;
  names: string;
  aliases: string;
}

export function toolsDraft(agent?: { tool_names: string[] | null; tool_aliases: Record<string, string | null> }): ToolsDraft {
  if (!agent) return { mode: 'default', names: '', aliases: '' };
  const mode: ToolMode = agent.tool_names === null ? 'unknown' : agent.tool_names.length === 0 ? 'none' : 'list';
  const aliases = Object.keys(agent.tool_aliases).length ? JSON.stringify(agent.tool_aliases, null, 2) : '';
  return { mode, names: (agent.tool_names ?? []).join(', '), aliases };
}

/** The request fields for the draft; throws a readable error for aliases that are not a JSON object of names. */
export function toolFields(d: ToolsDraft): { tool_names?: string[] | null; tool_aliases: Record<string, string | null> } {
  let aliases: unknown = {};
  if (d.aliases.trim()) {
    try {
      aliases = JSON.parse(d.aliases);
    } catch {
      throw new Error('Tool aliases must be a JSON object, e.g. {"issue_refund": "refund_payment", "transfer_to_human": null}');
    }
  }
  if (aliases === null || typeof aliases !== 'object' || Array.isArray(aliases) || Object.values(aliases).some((v) => v !== null && typeof v !== 'string')) {
    throw new Error('Tool aliases must map template tool names to this agent\'s tool names, or to null for "no such tool"');
  }
  const out: { tool_names?: string[] | null; tool_aliases: Record<string, string | null> } = { tool_aliases: aliases as Record<string, string | null> };
  if (d.mode === 'unknown') out.tool_names = null;
  else if (d.mode === 'none') out.tool_names = [];
  else if (d.mode === 'list') out.tool_names = [...new Set(d.names.split(/[\s,]+/).filter(Boolean))];
  return out;
}
