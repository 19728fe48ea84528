import { randomBytes } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import { nodeHttpFetch, type HttpFetch } from '../lib/http.js';
import { configWithDefaults, type ResolvedConfigs } from './configs.js';
import { validateWith } from './credential-check.js';
import { rtcNodeChannelFactory, type LiveKitChannelFactory, type LiveKitTextChannel } from './livekit-channel.js';
import { LiveKitSession } from './livekit-session.js';
import { TwirpClient } from './livekit-twirp.js';
import { ProviderError, type ProviderAdapter, type ProviderSession, type ValidateResult } from '../engine/provider.js';

// LiveKit + LiveKit Agents. Per conversation: CreateRoom, CreateDispatch of the
// agent by name (explicit dispatch), join as the simulated user and talk over text streams, DeleteRoom at the
// end (also on cancel and on a failed start), so no room outlives its conversation.

type Cfg = ResolvedConfigs['livekit'];

/** Seconds an empty room survives: if Rehearsal dies before DeleteRoom, LiveKit reaps the room itself. */
const EMPTY_TIMEOUT_S = 60;
const DEPARTURE_TIMEOUT_S = 10;
/**
 * Budget for DeleteRoom after the conversation's own signal is gone (cancel, timeout). Wall-clock on purpose: it
 * only guards a socket against hanging forever; the engine bounds close() on its own clock.
 */
const TEARDOWN_TIMEOUT_MS = 5000;
/** The agent needs a moment to start its session and generate a greeting after it joins. */
const MIN_GREETING_WINDOW_MS = 3000;

export interface LiveKitAdapterOptions {
  fetch?: HttpFetch;
  /** The room/text layer; the rtc-node implementation by default, an in-memory fake in tests. */
  channelFactory?: LiveKitChannelFactory;
  retrySchedule?: readonly number[];
  greetingWindowMs?: number;
}

function dispatchMetadata(v: Cfg['dispatch_metadata']): string | undefined {
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function channelError(err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted || err instanceof ProviderError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return new ProviderError('unreachable', `could not join the LiveKit room: ${msg}`, { cause: err });
}

export function createLiveKitAdapter(deps: LiveKitAdapterOptions = {}): ProviderAdapter {
  const fetchImpl = deps.fetch ?? nodeHttpFetch;
  const channelFactory = deps.channelFactory ?? rtcNodeChannelFactory;
  const twirpFor = (cfg: Cfg, clock: Clock) =>
    new TwirpClient({ baseUrl: cfg.base_url, apiKey: cfg.api_key, apiSecret: cfg.api_secret, fetch: fetchImpl, clock, retrySchedule: deps.retrySchedule });

  async function openSession({ config, scenarioRunId, signal, clock }: Parameters<ProviderAdapter['openSession']>[0]): Promise<ProviderSession> {
    const cfg = configWithDefaults('livekit', config as Record<string, unknown>);
    const twirp = twirpFor(cfg, clock);
    const room = `${cfg.room_prefix}${scenarioRunId}-${randomBytes(3).toString('hex')}`;
    let roomCreated = false;
    let channel: LiveKitTextChannel | null = null;

    const teardown = async () => {
      if (!roomCreated) return;
      await twirp.deleteRoom(room, AbortSignal.timeout(TEARDOWN_TIMEOUT_MS));
    };

    try {
      await twirp.createRoom(room, { emptyTimeout: EMPTY_TIMEOUT_S, departureTimeout: DEPARTURE_TIMEOUT_S }, signal);
      roomCreated = true;
      await twirp.createDispatch(room, cfg.agent_name, dispatchMetadata(cfg.dispatch_metadata), signal);
      const token = await twirp.token(
        { roomJoin: true, room, canPublish: true, canSubscribe: true, canPublishData: true },
        // Valid for the whole conversation: the SDK reuses it when it reconnects.
        { identity: cfg.participant_identity, ttl: `${Math.ceil(cfg.timeout_ms / 1000) + 300}s` },
      );
      channel = await channelFactory({
        url: cfg.url,
        token,
        room,
        identity: cfg.participant_identity,
        agentName: cfg.agent_name,
        inputTopic: cfg.input_topic,
        outputTopic: cfg.output_topic,
        toolEventsTopic: cfg.tool_events_topic ?? null,
        signal,
      }).catch((err: unknown) => {
        throw channelError(err, signal);
      });
    } catch (err) {
      // A half-opened conversation must not leave a room (and a dispatched agent) behind.
      await teardown().catch(() => undefined);
      throw err;
    }

    return new LiveKitSession({
      channel,
      clock,
      replyIdleMs: cfg.reply_idle_ms,
      greetingWindowMs: deps.greetingWindowMs ?? Math.max(MIN_GREETING_WINDOW_MS, 2 * cfg.reply_idle_ms),
      costPerMinuteUsd: cfg.cost_per_minute_usd ?? null,
      teardown,
    });
  }

  async function validate(config: unknown, opts: { signal: AbortSignal; clock: Clock }): Promise<ValidateResult> {
    const cfg = configWithDefaults('livekit', config as Record<string, unknown>);
    return validateWith(opts, async (signal) => {
      const res = (await twirpFor(cfg, opts.clock).listRooms(signal)) as { rooms?: unknown } | null;
      if (!res || typeof res !== 'object') throw new ProviderError('provider_error', 'unexpected ListRooms answer (not a JSON object)');
      return {
        valid: true,
        message: 'credentials accepted; the agent name cannot be checked without dispatching the agent',
        details: { status: 200, agent_name_checked: false },
      };
    });
  }

  return { platform: 'livekit', openSession, validate };
}
