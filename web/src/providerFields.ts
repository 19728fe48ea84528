// The config fields of each provider, mirrored from src/providers/configs.ts (the API validates the config;
// this only drives the form). test/web/provider-fields.test.ts fails when the two drift apart.

export type FieldKind = 'text' | 'secret' | 'longtext' | 'url' | 'integer' | 'number' | 'boolean' | 'enum' | 'json' | 'json-or-text';

export interface ConfigField {
  name: string;
  kind: FieldKind;
  required?: boolean;
  options?: string[];
  hint: string;
  placeholder?: string;
}

export interface ProviderForm { platform: string; fields: ConfigField[] }

const timeout: ConfigField = { name: 'timeout_ms', kind: 'integer', hint: 'Upper bound for one whole conversation, in ms (default 120000).' };
const costPerMinute: ConfigField = { name: 'cost_per_minute_usd', kind: 'number', hint: 'Your USD rate per minute; cost is estimated as duration × rate.' };

export const PROVIDER_FORMS: Record<string, ProviderForm> = {
  provider_1: {
    platform: 'Vapi',
    fields: [
      { name: 'api_key', kind: 'secret', required: true, hint: 'Vapi private API key (not the public pbk_ key).' },
      { name: 'assistant_id', kind: 'text', required: true, hint: 'Id of the Vapi assistant under test.' },
      { name: 'phone_number', kind: 'text', hint: 'Customer number (E.164) for a voice call; needs phone_number_id.', placeholder: '+14155550123' },
      { name: 'phone_number_id', kind: 'text', hint: 'Id of the Vapi phone-number resource that places the call.' },
      { name: 'metadata', kind: 'json', hint: 'JSON object passed as assistantOverrides.metadata.' },
      { name: 'variable_values', kind: 'json', hint: 'JSON object of template variables for the assistant.' },
      { name: 'mode', kind: 'enum', options: ['chat', 'call'], hint: 'chat: text turns; call: a voice call (needs phone_number).' },
      { name: 'base_url', kind: 'url', hint: 'Default https://api.vapi.ai.' },
      timeout,
    ],
  },
  provider_2: {
    platform: 'LiveKit Agents',
    fields: [
      { name: 'url', kind: 'url', required: true, hint: 'LiveKit project URL.', placeholder: 'wss://my-project.livekit.cloud' },
      { name: 'api_key', kind: 'secret', required: true, hint: 'LiveKit API key.' },
      { name: 'api_secret', kind: 'secret', required: true, hint: 'LiveKit API secret (signs the access tokens).' },
      { name: 'agent_name', kind: 'text', required: true, hint: 'agent_name the agent worker registered with.' },
      { name: 'room_prefix', kind: 'text', hint: 'Prefix of the test rooms (default test-).' },
      { name: 'dispatch_metadata', kind: 'json-or-text', hint: 'Metadata for the agent dispatch: text, or a JSON object.' },
      { name: 'participant_identity', kind: 'text', hint: 'Identity of the simulated user (default sim-user).' },
      { name: 'input_topic', kind: 'text', hint: 'Topic the agent reads user text from (default lk.chat).' },
      { name: 'output_topic', kind: 'text', hint: 'Topic the agent writes replies to (default lk.transcription).' },
      { name: 'tool_events_topic', kind: 'text', hint: 'Topic on which the agent publishes its tool calls, if it does.' },
      { name: 'reply_idle_ms', kind: 'integer', hint: 'Quiet time after which the agent turn is complete (default 1500).' },
      costPerMinute,
      { name: 'base_url', kind: 'url', hint: 'HTTP base URL of the server API; default derived from url.' },
      timeout,
    ],
  },
  provider_3: {
    platform: 'Pipecat Cloud',
    fields: [
      { name: 'public_api_key', kind: 'secret', required: true, hint: 'Public key (pk_…), starts sessions.' },
      { name: 'agent_name', kind: 'text', required: true, hint: 'Name of the deployed agent.' },
      { name: 'private_api_key', kind: 'secret', hint: 'Private key: enables the credential check and session details.' },
      { name: 'transport', kind: 'enum', options: ['websocket'], hint: 'Session transport.' },
      { name: 'body', kind: 'json', hint: 'JSON object passed to the bot at session start (at most 4 KB).' },
      { name: 'serializer', kind: 'enum', options: ['protobuf'], hint: 'Frame serializer of the bot.' },
      costPerMinute,
      { name: 'base_url', kind: 'url', hint: 'Default https://api.pipecat.daily.co.' },
      timeout,
    ],
  },
  provider_4: {
    platform: 'OpenAI-compatible endpoint',
    fields: [
      { name: 'base_url', kind: 'url', required: true, hint: 'Base URL of the Chat Completions API.', placeholder: 'https://api.openai.com/v1' },
      { name: 'model', kind: 'text', required: true, hint: 'Model name sent with every request.' },
      { name: 'api_key', kind: 'secret', hint: 'Bearer token; leave empty for servers that need none.' },
      { name: 'system_prompt', kind: 'longtext', hint: 'System message placed before the conversation.' },
      { name: 'tools', kind: 'json', hint: 'JSON array of function tools: [{"type":"function","function":{"name":…}}].' },
      { name: 'tool_mocks', kind: 'json', hint: 'JSON object: tool name → canned result returned to the model.' },
      { name: 'temperature', kind: 'number', hint: '0 to 2.' },
      { name: 'max_completion_tokens', kind: 'integer', hint: 'Upper bound on each reply.' },
      { name: 'extra_headers', kind: 'json', hint: 'JSON object of extra HTTP headers (treated as secrets).' },
      { name: 'price_per_1k_input', kind: 'number', hint: 'USD per 1,000 prompt tokens (for cost).' },
      { name: 'price_per_1k_output', kind: 'number', hint: 'USD per 1,000 completion tokens (for cost).' },
      timeout,
    ],
  },
  provider_5: {
    platform: 'Retell AI',
    fields: [
      { name: 'api_key', kind: 'secret', required: true, hint: 'Retell API key.' },
      { name: 'agent_id', kind: 'text', required: true, hint: 'Id of a Retell chat agent.' },
      { name: 'agent_version', kind: 'integer', hint: 'Agent version (default: latest).' },
      { name: 'metadata', kind: 'json', hint: 'JSON object stored with each chat at Retell.' },
      { name: 'dynamic_variables', kind: 'json', hint: 'JSON object of string → string variables.' },
      { name: 'base_url', kind: 'url', hint: 'Default https://api.retellai.com.' },
      timeout,
    ],
  },
  provider_6: {
    platform: 'ElevenLabs Agents',
    fields: [
      { name: 'api_key', kind: 'secret', required: true, hint: 'ElevenLabs API key (xi-api-key).' },
      { name: 'agent_id', kind: 'text', required: true, hint: 'Id of the ElevenLabs agent.' },
      { name: 'text_only_override', kind: 'boolean', hint: 'Ask for a text-only conversation (default on).' },
      { name: 'dynamic_variables', kind: 'json', hint: 'JSON object of string, number or boolean values.' },
      { name: 'first_message', kind: 'longtext', hint: 'Overrides the agent first message.' },
      { name: 'prompt_override', kind: 'longtext', hint: 'Overrides the agent system prompt.' },
      { name: 'region', kind: 'enum', options: ['global', 'us', 'eu', 'in', 'sg'], hint: 'Data-residency region; selects the default base_url.' },
      { name: 'client_tool_results', kind: 'json', hint: 'JSON object: client tool name → canned result.' },
      { name: 'post_call_poll_ms', kind: 'integer', hint: 'Poll interval while the record is processing (default 2000).' },
      { name: 'post_call_timeout_ms', kind: 'integer', hint: 'Wait for the finished record, in ms (default 60000).' },
      { name: 'base_url', kind: 'url', hint: 'Default depends on region.' },
      timeout,
    ],
  },
};

export const providerLabel = (p: string) => `${PROVIDER_FORMS[p]?.platform ?? p} (${p})`;

/**
 * The form's strings → the config object: empty fields are left out (the API applies its defaults),
 * numbers and JSON are parsed. Throws a message naming the field when a value cannot be parsed.
 */
export function buildConfig(provider: string, values: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of PROVIDER_FORMS[provider]?.fields ?? []) {
    const v = values[f.name];
    if (typeof v !== 'string' || v.trim() === '') continue;
    if (f.kind === 'boolean') {
      out[f.name] = v === 'true';
      continue;
    }
    if (f.kind === 'integer' || f.kind === 'number') {
      const n = Number(v);
      if (!Number.isFinite(n)) throw new Error(`config.${f.name} must be a number`);
      out[f.name] = n;
    } else if (f.kind === 'json' || f.kind === 'json-or-text') {
      try {
        out[f.name] = JSON.parse(v);
      } catch {
        if (f.kind === 'json') throw new Error(`config.${f.name} is not valid JSON`);
        out[f.name] = v;
      }
    } else {
      out[f.name] = f.kind === 'longtext' ? v : v.trim();
    }
  }
  return out;
}
