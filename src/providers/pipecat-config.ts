import { Type, type Static } from '@sinclair/typebox';
import { costPerMinute, DEFAULT_TIMEOUT_MS, httpUrl, jsonObject, oneOfStrings, secret, text, timeoutMs, type PlatformConfig } from './config-kit.js';

export const PipecatCloudConfig = Type.Object(
  {
    public_api_key: secret('Pipecat Cloud public key (pk_...), used to start sessions.'),
    agent_name: text(256, 'Name of the deployed agent.'),
    private_api_key: Type.Optional(secret('Pipecat Cloud private key: enables the credential check and session details.')),
    transport: Type.Optional(oneOfStrings(['websocket'], 'Session transport. Text tests run over the websocket transport.', 'websocket')),
    body: Type.Optional(jsonObject('Object passed to the bot at session start (at most 4 KB as JSON on the websocket transport).')),
    serializer: Type.Optional(oneOfStrings(['protobuf'], "Frame serializer of the bot (Pipecat's ProtobufFrameSerializer).", 'protobuf')),
    cost_per_minute_usd: Type.Optional(costPerMinute()),
    base_url: Type.Optional(httpUrl('Pipecat Cloud API base URL.', { default: 'https://api.pipecat.daily.co' })),
    timeout_ms: Type.Optional(timeoutMs()),
  },
  { additionalProperties: false, title: 'provider_3 (Pipecat Cloud)' },
);
export type PipecatCloudConfig = Static<typeof PipecatCloudConfig>;
export type ResolvedPipecatCloudConfig = PipecatCloudConfig & Required<Pick<PipecatCloudConfig, 'transport' | 'serializer' | 'base_url' | 'timeout_ms'>>;

/** The websocket transport carries the session-start body in a 4 KB field. */
const MAX_BODY_BYTES = 4096;

export const pipecatConfig: PlatformConfig<typeof PipecatCloudConfig> = {
  schema: PipecatCloudConfig,
  defaults: { base_url: 'https://api.pipecat.daily.co', transport: 'websocket', serializer: 'protobuf', timeout_ms: DEFAULT_TIMEOUT_MS },
  fieldIssues(field, value) {
    if (field !== 'body') return [];
    const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
    return bytes > MAX_BODY_BYTES
      ? [{ kind: 'invalid', field: 'config.body', message: `config.body must be at most ${MAX_BODY_BYTES} bytes as JSON on the websocket transport (got ${bytes})` }]
      : [];
  },
};
