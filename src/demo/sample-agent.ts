import { randomBytes } from 'node:crypto';
import { startChatServer, type WireAnswer, type WireRequest } from './openai-wire.js';
import { respond } from './receptionist.js';

// The demo's agent under test: "Ava", a small rule-based receptionist for a dental clinic, served on
// 127.0.0.1 in the OpenAI Chat Completions wire format (so it is registered as provider_4 like any
// OpenAI-compatible agent). Deterministic, and deliberately imperfect: see receptionist.ts for its flaws.

export const SAMPLE_AGENT_MODEL = 'brightsmile-receptionist';
export const SAMPLE_AGENT_NAME = 'Brightsmile Dental receptionist (sample)';

const fn = (name: string, description: string, properties: Record<string, string>) => ({
  type: 'function',
  function: {
    name, description,
    parameters: { type: 'object', properties: Object.fromEntries(Object.entries(properties).map(([k, d]) => [k, { type: 'string', description: d }])) },
  },
});

/** The tools the agent may call. There is deliberately no transfer_to_human: this agent cannot hand off. */
export const SAMPLE_AGENT_TOOLS = [
  fn('lookup_appointment', "Find a patient's appointment in the diary", { patient_name: 'Full name' }),
  fn('book_appointment', 'Book an appointment', { patient_name: 'Full name', phone: 'Phone number', day: 'Day', time: 'Time', reason: 'Reason for the visit' }),
  fn('reschedule_appointment', 'Move an appointment', { patient_name: 'Full name', from: 'Current slot', to: 'New slot' }),
  fn('cancel_appointment', 'Cancel an appointment', { patient_name: 'Full name', when: 'Slot to cancel' }),
  fn('cancel_membership', 'Cancel a membership plan', { email: 'Account e-mail' }),
  fn('lookup_order', 'Look up a shop order', { order_number: 'Order number' }),
  fn('lookup_account', 'Look up a patient account', { name: 'Full name', email: 'Account e-mail' }),
  fn('create_ticket', 'Log a complaint or a billing review', { patient_name: 'Full name', phone: 'Phone number', kind: 'complaint or billing' }),
  fn('update_email', "Change the account's e-mail address", { name: 'Full name', email: 'New e-mail address' }),
  fn('update_address', "Change the account's postal address", { name: 'Full name', address: 'New address' }),
];

/**
 * How the built-in templates' tool names map onto this agent's tools (null: it has no such tool), so tool
 * checks on names it does not use are decided instead of left UNSURE.
 */
export const SAMPLE_AGENT_TOOL_ALIASES: Record<string, string | null> = {
  apply_discount: null,
  check_availability: null,
  issue_refund: null,
  transfer_to_human: null,
  update_contact_details: 'update_email',
};

/** What tool checks know of this agent: the names in its config plus the aliases above. */
export const SAMPLE_AGENT_TOOL_INFO = { tool_names: SAMPLE_AGENT_TOOLS.map((t) => t.function.name), tool_aliases: SAMPLE_AGENT_TOOL_ALIASES };

/** What the provider adapter answers for each tool call (provider_4 never executes tools itself). */
export const SAMPLE_AGENT_TOOL_MOCKS: Record<string, unknown> = Object.fromEntries(SAMPLE_AGENT_TOOLS.map((t) => [t.function.name, { ok: true }]));

/** One answer of the agent: a tool call first when its rule wants one, the words once the tool has answered. */
export function completeChat(req: WireRequest): WireAnswer {
  const users = req.messages.filter((m) => m.role === 'user').map((m) => m.content ?? '');
  const turn = respond(users);
  const last = req.messages[req.messages.length - 1];
  if (turn.tool && last?.role === 'user') return { content: null, tool_calls: [{ name: turn.tool.name, arguments: turn.tool.args }] };
  return { content: turn.text };
}

export interface SampleAgent {
  baseUrl: string;
  model: string;
  apiKey: string;
  /** The provider_4 config that registers this agent with Rehearsal. */
  config: Record<string, unknown>;
  close(): Promise<void>;
}

export async function startSampleAgent(opts: { port?: number; apiKey?: string } = {}): Promise<SampleAgent> {
  const apiKey = opts.apiKey ?? `sk-sample-${randomBytes(12).toString('hex')}`;
  const server = await startChatServer({ apiKey, models: [SAMPLE_AGENT_MODEL], complete: completeChat, port: opts.port });
  return {
    baseUrl: server.baseUrl,
    model: SAMPLE_AGENT_MODEL,
    apiKey,
    config: { base_url: server.baseUrl, model: SAMPLE_AGENT_MODEL, api_key: apiKey, tools: SAMPLE_AGENT_TOOLS, tool_mocks: SAMPLE_AGENT_TOOL_MOCKS, timeout_ms: 30_000 },
    close: server.close,
  };
}
