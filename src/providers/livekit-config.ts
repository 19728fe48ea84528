import { Type, type Static } from '@sinclair/typebox';
import { costPerMinute, DEFAULT_TIMEOUT_MS, httpUrl, jsonObject, secret, text, timeoutMs, WS_OR_HTTP_URL_PATTERN, type PlatformConfig } from './config-kit.js';

export const LiveKitConfig = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      pattern: WS_OR_HTTP_URL_PATTERN,
      description: 'LiveKit project URL, e.g. wss://my-project.livekit.cloud.',
    }),
    api_key: secret('LiveKit API key.'),
    api_secret: secret('LiveKit API secret (signs the access tokens).'),
    agent_name: text(256, 'agent_name the agent worker registered with (explicit dispatch).'),
    room_prefix: Type.Optional(text(64, 'Prefix of the rooms created for test conversations.', { default: 'test-' })),
    dispatch_metadata: Type.Optional(
      Type.Union([Type.String({ maxLength: 65_536 }), jsonObject('JSON metadata (sent serialised).')], {
        description: 'Metadata given to the agent dispatch: a string, or an object sent as JSON.',
      }),
    ),
    participant_identity: Type.Optional(text(128, 'Identity of the simulated user in the room.', { default: 'sim-user' })),
    input_topic: Type.Optional(text(128, 'Text-stream topic the agent reads user text from.', { default: 'lk.chat' })),
    output_topic: Type.Optional(text(128, 'Text-stream topic the agent writes its replies to.', { default: 'lk.transcription' })),
    tool_events_topic: Type.Optional(text(128, 'Topic on which the agent publishes its tool calls as JSON (only if it does).')),
    reply_idle_ms: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 60_000, default: 1500, description: 'Quiet time after which the agent turn counts as complete.' }),
    ),
    cost_per_minute_usd: Type.Optional(costPerMinute()),
    base_url: Type.Optional(httpUrl('HTTP base URL of the server API (Twirp). Default: url with ws(s) replaced by http(s).')),
    timeout_ms: Type.Optional(timeoutMs()),
  },
  { additionalProperties: false, title: 'provider_2 (LiveKit Agents)' },
);
export type LiveKitConfig = Static<typeof LiveKitConfig>;
export type ResolvedLiveKitConfig = LiveKitConfig &
  Required<Pick<LiveKitConfig, 'room_prefix' | 'participant_identity' | 'input_topic' | 'output_topic' | 'reply_idle_ms' | 'base_url' | 'timeout_ms'>>;

export const liveKitConfig: PlatformConfig<typeof LiveKitConfig> = {
  schema: LiveKitConfig,
  defaults: {
    room_prefix: 'test-',
    participant_identity: 'sim-user',
    input_topic: 'lk.chat',
    output_topic: 'lk.transcription',
    reply_idle_ms: 1500,
    timeout_ms: DEFAULT_TIMEOUT_MS,
  },
  // The server API lives on the project URL's host: ws:// → http://, wss:// → https://.
  derive(out) {
    if (out.base_url === undefined && typeof out.url === 'string') out.base_url = out.url.replace(/^wss:/i, 'https:').replace(/^ws:/i, 'http:');
  },
};
