import { Type, type Static } from '@sinclair/typebox';
import { DEFAULT_TIMEOUT_MS, httpUrl, jsonObject, oneOfStrings, secret, text, timeoutMs, type PlatformConfig } from './config-kit.js';

export const ElevenLabsConfig = Type.Object(
  {
    api_key: secret('ElevenLabs API key (xi-api-key).'),
    agent_id: text(256, 'Id of the ElevenLabs agent.'),
    text_only_override: Type.Optional(
      Type.Boolean({ default: true, description: 'Ask for a text-only conversation (the override must be allowed in the agent settings).' }),
    ),
    dynamic_variables: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String({ maxLength: 10_000 }), Type.Number(), Type.Boolean()]), {
        maxProperties: 100,
        description: 'Dynamic variables (string, number or boolean values).',
      }),
    ),
    first_message: Type.Optional(text(10_000, 'Overrides the agent first message.')),
    prompt_override: Type.Optional(text(100_000, 'Overrides the agent system prompt.')),
    region: Type.Optional(oneOfStrings(['global', 'us', 'eu', 'in', 'sg'], 'Data-residency region; selects the default base_url.', 'global')),
    client_tool_results: Type.Optional(jsonObject('Client tool name → canned result sent back when the agent calls it.', 128)),
    post_call_poll_ms: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 60_000, default: 2000, description: 'Poll interval while the conversation record is processing.' }),
    ),
    post_call_timeout_ms: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 600_000, default: 60_000, description: 'How long to wait for the finished conversation record (cost, metrics).' }),
    ),
    base_url: Type.Optional(httpUrl('ElevenLabs API base URL. Default depends on region.')),
    timeout_ms: Type.Optional(timeoutMs()),
  },
  { additionalProperties: false, title: 'provider_6 (ElevenLabs Agents)' },
);
export type ElevenLabsConfig = Static<typeof ElevenLabsConfig>;
export type ResolvedElevenLabsConfig = ElevenLabsConfig &
  Required<Pick<ElevenLabsConfig, 'text_only_override' | 'region' | 'post_call_poll_ms' | 'post_call_timeout_ms' | 'base_url' | 'timeout_ms'>>;

export const ELEVENLABS_REGION_BASE_URLS = {
  global: 'https://api.elevenlabs.io',
  us: 'https://api.us.elevenlabs.io',
  eu: 'https://api.eu.residency.elevenlabs.io',
  in: 'https://api.in.residency.elevenlabs.io',
  sg: 'https://api.sg.residency.elevenlabs.io',
} as const;

export const elevenLabsConfig: PlatformConfig<typeof ElevenLabsConfig> = {
  schema: ElevenLabsConfig,
  defaults: {
    text_only_override: true,
    region: 'global',
    post_call_poll_ms: 2000,
    post_call_timeout_ms: 60_000,
    timeout_ms: DEFAULT_TIMEOUT_MS,
  },
  // Data residency: the region picks the API host.
  derive(out) {
    if (out.base_url === undefined) {
      out.base_url = ELEVENLABS_REGION_BASE_URLS[out.region as keyof typeof ELEVENLABS_REGION_BASE_URLS] ?? ELEVENLABS_REGION_BASE_URLS.global;
    }
  },
};
