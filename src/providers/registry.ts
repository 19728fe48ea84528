import { PROVIDER_ID_OF, type ProviderAdapter, type ProviderId } from '../engine/provider.js';
import { createElevenLabsAdapter } from './elevenlabs.js';
import { createOpenAiCompatibleAdapter } from './openai-compatible.js';
import { createRetellAdapter } from './retell.js';
import { createVapiAdapter } from './vapi.js';
import { createLiveKitAdapter } from './livekit.js';
import { createPipecatAdapter } from './pipecat.js';

/** The adapters this build ships, keyed by the provider value agents are stored with. */
export function createAdapters(): Partial<Record<ProviderId, ProviderAdapter>> {
  const adapters = [
    createVapiAdapter(),
    createLiveKitAdapter(),
    createPipecatAdapter(),
    createOpenAiCompatibleAdapter(),
    createRetellAdapter(),
    createElevenLabsAdapter(),
  ];
  return Object.fromEntries(adapters.map((a) => [PROVIDER_ID_OF[a.platform], a]));
}
