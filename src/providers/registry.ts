import type { ProviderAdapter, ProviderId } from './types.js';
import { createElevenLabsAdapter } from './elevenlabs.js';
import { createOpenAiCompatibleAdapter } from './openai-compatible.js';
import { createRetellAdapter } from './retell.js';
import { createVapiAdapter } from './vapi.js';
import { createLiveKitAdapter } from './livekit.js';
import { createPipecatAdapter } from './pipecat.js';

/** The adapters this build ships, by provider value. */
export function createAdapters(): Partial<Record<ProviderId, ProviderAdapter>> {
  return {
    provider_1: createVapiAdapter(),
    provider_2: createLiveKitAdapter(),
    provider_3: createPipecatAdapter(),
    provider_4: createOpenAiCompatibleAdapter(),
    provider_5: createRetellAdapter(),
    provider_6: createElevenLabsAdapter(),
  };
}
