import { describe, expect, it } from 'vitest';
import { PLATFORM_OF } from '../engine/provider.js';
import { PROVIDERS, configWithDefaults, validateAgentConfig } from './configs.js';
import { minimal, full } from '../../test/providers/config-fixtures.js';

describe('configWithDefaults', () => {
  it('provider_1: Vapi defaults', () => {
    expect(configWithDefaults('vapi', minimal.provider_1)).toEqual({
      ...minimal.provider_1,
      base_url: 'https://api.vapi.ai',
      mode: 'chat',
      timeout_ms: 120_000,
    });
  });

  it('provider_1: a phone number selects mode call unless mode is given', () => {
    const withPhone = { ...minimal.provider_1, phone_number: '+14155550123', phone_number_id: 'pn' };
    expect(configWithDefaults('vapi', withPhone).mode).toBe('call');
    expect(configWithDefaults('vapi', { ...withPhone, mode: 'chat' }).mode).toBe('chat');
  });

  it('provider_2: LiveKit defaults, base_url derived from url', () => {
    expect(configWithDefaults('livekit', minimal.provider_2)).toEqual({
      ...minimal.provider_2,
      room_prefix: 'test-',
      participant_identity: 'sim-user',
      input_topic: 'lk.chat',
      output_topic: 'lk.transcription',
      reply_idle_ms: 1500,
      base_url: 'https://demo.livekit.cloud',
      timeout_ms: 120_000,
    });
    expect(configWithDefaults('livekit', { ...minimal.provider_2, url: 'ws://localhost:7880/' }).base_url).toBe('http://localhost:7880');
  });

  it('provider_3: Pipecat Cloud defaults', () => {
    expect(configWithDefaults('pipecat', minimal.provider_3)).toEqual({
      ...minimal.provider_3,
      base_url: 'https://api.pipecat.daily.co',
      transport: 'websocket',
      serializer: 'protobuf',
      timeout_ms: 120_000,
    });
  });

  it('provider_4: only timeout_ms, base_url without trailing slash', () => {
    expect(configWithDefaults('openai_compatible', { ...minimal.provider_4, base_url: 'http://127.0.0.1:11434/v1/' })).toEqual({
      ...minimal.provider_4,
      timeout_ms: 120_000,
    });
  });

  it('provider_5: Retell defaults', () => {
    expect(configWithDefaults('retell', minimal.provider_5)).toEqual({
      ...minimal.provider_5,
      base_url: 'https://api.retellai.com',
      timeout_ms: 120_000,
    });
  });

  it('provider_6: ElevenLabs defaults, base_url from region', () => {
    expect(configWithDefaults('elevenlabs', minimal.provider_6)).toEqual({
      ...minimal.provider_6,
      text_only_override: true,
      region: 'global',
      base_url: 'https://api.elevenlabs.io',
      post_call_poll_ms: 2000,
      post_call_timeout_ms: 60_000,
      timeout_ms: 120_000,
    });
    expect(configWithDefaults('elevenlabs', { ...minimal.provider_6, region: 'in' }).base_url).toBe('https://api.in.residency.elevenlabs.io');
    expect(configWithDefaults('elevenlabs', { ...minimal.provider_6, region: 'us', base_url: 'http://fake:9/' }).base_url).toBe('http://fake:9');
    expect(configWithDefaults('elevenlabs', { ...minimal.provider_6, region: 'sg' }).base_url).toBe('https://api.sg.residency.elevenlabs.io');
  });

  it('given values win over defaults; nulls count as unset', () => {
    const out = configWithDefaults('retell', { ...minimal.provider_5, timeout_ms: 5000, base_url: null });
    expect(out.timeout_ms).toBe(5000);
    expect(out.base_url).toBe('https://api.retellai.com');
  });

  it('every resolved full and minimal config still validates', () => {
    for (const p of PROVIDERS) {
      for (const c of [minimal[p], full[p]]) expect(() => validateAgentConfig(p, configWithDefaults(PLATFORM_OF[p], c))).not.toThrow();
    }
  });
});
