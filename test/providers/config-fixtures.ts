import { expect } from 'vitest';
import { AppError } from '../../src/lib/errors.js';
import { statusOf } from '../../src/http/errors.js';
import { validateAgentConfig, type ProviderName } from '../../src/providers/configs.js';

// Configs of every platform (the least that validates, and every field) and the error assertions the config
// tests share.

export const SECRET = 'sk-SECRET-value-that-must-never-leak-0123456789';

export const minimal: Record<ProviderName, Record<string, unknown>> = {
  provider_1: { api_key: SECRET, assistant_id: 'asst_123' },
  provider_2: { url: 'wss://demo.livekit.cloud', api_key: SECRET, api_secret: SECRET, agent_name: 'support-agent' },
  provider_3: { public_api_key: SECRET, agent_name: 'my-bot' },
  provider_4: { base_url: 'http://127.0.0.1:11434/v1', model: 'llama3.1' },
  provider_5: { api_key: SECRET, agent_id: 'agent_abc' },
  provider_6: { api_key: SECRET, agent_id: 'agent_xyz' },
};

export const full: Record<ProviderName, Record<string, unknown>> = {
  provider_1: {
    api_key: SECRET,
    assistant_id: 'asst_123',
    phone_number: '+14155550123',
    phone_number_id: 'pn_456',
    metadata: { team: 'qa', nested: { a: 1 } },
    variable_values: { customer_name: 'Ada' },
    mode: 'call',
    base_url: 'https://api.vapi.ai',
    timeout_ms: 300_000,
  },
  provider_2: {
    url: 'https://demo.livekit.cloud',
    api_key: SECRET,
    api_secret: SECRET,
    agent_name: 'support-agent',
    room_prefix: 'qa-',
    dispatch_metadata: { suite: 'smoke' },
    participant_identity: 'tester',
    input_topic: 'lk.chat',
    output_topic: 'lk.transcription',
    tool_events_topic: 'app.tools',
    reply_idle_ms: 2500,
    cost_per_minute_usd: 0.01,
    base_url: 'https://demo.livekit.cloud',
    timeout_ms: 60_000,
  },
  provider_3: {
    public_api_key: SECRET,
    agent_name: 'my-bot',
    private_api_key: SECRET,
    transport: 'websocket',
    body: { language: 'en' },
    serializer: 'protobuf',
    cost_per_minute_usd: 0,
    base_url: 'https://api.pipecat.daily.co',
    timeout_ms: 1000,
  },
  provider_4: {
    base_url: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
    api_key: SECRET,
    system_prompt: 'You are a helpful booking agent.',
    tools: [
      { type: 'function', function: { name: 'book_table', description: 'Books a table', parameters: { type: 'object', properties: {} } } },
      { type: 'function', function: { name: 'cancel', strict: true } },
    ],
    tool_mocks: { book_table: { ok: true }, cancel: 'done' },
    temperature: 0.2,
    max_completion_tokens: 512,
    extra_headers: { 'X-Org': 'acme' },
    price_per_1k_input: 0.00015,
    price_per_1k_output: 0.0006,
    timeout_ms: 600_000,
  },
  provider_5: {
    api_key: SECRET,
    agent_id: 'agent_abc',
    agent_version: 3,
    metadata: { run: 'x' },
    dynamic_variables: { name: 'Ada' },
    base_url: 'https://api.retellai.com',
    timeout_ms: 120_000,
  },
  provider_6: {
    api_key: SECRET,
    agent_id: 'agent_xyz',
    text_only_override: false,
    dynamic_variables: { name: 'Ada', age: 36, vip: true },
    first_message: 'Hi!',
    prompt_override: 'Be brief.',
    region: 'eu',
    client_tool_results: { lookup: { found: true } },
    post_call_poll_ms: 500,
    post_call_timeout_ms: 0,
    base_url: 'https://api.eu.residency.elevenlabs.io',
    timeout_ms: 90_000,
  },
};

export const requiredFields: Record<ProviderName, string[]> = {
  provider_1: ['api_key', 'assistant_id'],
  provider_2: ['url', 'api_key', 'api_secret', 'agent_name'],
  provider_3: ['public_api_key', 'agent_name'],
  provider_4: ['base_url', 'model'],
  provider_5: ['api_key', 'agent_id'],
  provider_6: ['api_key', 'agent_id'],
};

export function catchError(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected an AppError, nothing was thrown');
}

export function expectError(provider: ProviderName, config: unknown, code: 'MISSING_REQUIRED_FIELD' | 'INVALID_FIELD_VALUE', field: string): AppError {
  const err = catchError(() => validateAgentConfig(provider, config));
  expect({ code: err.code, field: err.details?.field }).toEqual({ code, field });
  expect(statusOf(err)).toBe(400);
  return err;
}

export function expectNoSecret(err: AppError) {
  const text = JSON.stringify({ message: err.message, details: err.details });
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain('SECRET');
}
