import { createLiveKitAdapter } from '../../src/providers/livekit.js';
import type { LiveKitChannelFactory } from '../../src/providers/livekit-channel.js';
import { startFakeLiveKit, type FakeAgentTurn, type FakeLiveKit, type FakeLiveKitAgent } from '../fakes/livekit.js';
import type { ContractAgent, ContractConfigOptions, ContractFake, ContractReply } from './adapter-contract.js';

// provider_2 test fixtures: the fake Twirp server plus the in-memory room, wrapped for the shared contract.

export const AGENT_NAME = 'support-agent';
export const TOOL_TOPIC = 'agent.tools';
/** Short windows keep the suite fast; the production defaults are in livekit.ts. */
export const TEST_GREETING_WINDOW_MS = 300;
export const TEST_REPLY_IDLE_MS = 100;

export interface LiveKitContractFake extends ContractFake {
  server: FakeLiveKit;
  factory: LiveKitChannelFactory;
}

/** A ContractReply as the LiveKit agent publishes it: tool events on its own topic, then one speech segment. */
export function turnFor(reply: ContractReply, latencyMs: number): FakeAgentTurn {
  return {
    segments: [reply.content.split(/(?<= )/)],
    toolEvents: (reply.tool_calls ?? []).map((c, i) => ({ id: `call_${i + 1}`, name: c.name, arguments: c.arguments, result: c.result })),
    delayMs: latencyMs,
  };
}

let current: LiveKitContractFake | null = null;

export async function makeLiveKitFake(): Promise<LiveKitContractFake> {
  const server = await startFakeLiveKit();
  let agent: ContractAgent = { greeting: null, reply: (t) => ({ content: t }) };
  let latency = 0;
  const heard: string[] = [];
  let waiters: (() => void)[] = [];
  const fakeAgent: FakeLiveKitAgent = {
    toolTopic: TOOL_TOPIC,
    get greeting() {
      return agent.greeting === null ? undefined : { segments: [agent.greeting] };
    },
    reply: (text, history) => {
      heard.push(text);
      waiters.splice(0).forEach((w) => w());
      return turnFor(agent.reply(text, history.length - 1), latency);
    },
  };
  const fake: LiveKitContractFake = {
    server,
    factory: server.channelFactory(fakeAgent, { agentName: AGENT_NAME }),
    setAgent: (a) => { agent = a; },
    inject: (fault, o = {}) => server.inject(fault, { method: 'CreateRoom', times: o.times, retryAfter: o.retryAfter }),
    setLatency: (ms) => { latency = ms; },
    heard: () => [...heard],
    nextTurn: () => new Promise((r) => waiters.push(r)),
    openSessions: () => server.rooms.size,
    lastCostUsd: () => null, // no rate configured: LiveKit reports no cost
    close: () => { waiters = []; return server.close(); },
  };
  current = fake;
  return fake;
}

export function liveKitConfig(fake: ContractFake, o: ContractConfigOptions = {}): Record<string, unknown> {
  const server = (fake as LiveKitContractFake).server;
  return {
    url: server.wsUrl,
    api_key: server.apiKey,
    api_secret: o.badKey ? 'not-the-secret-of-this-project-0000' : server.apiSecret,
    agent_name: o.unknownAgent ? 'nobody' : AGENT_NAME,
    tool_events_topic: TOOL_TOPIC,
    reply_idle_ms: TEST_REPLY_IDLE_MS,
    ...(o.baseUrl ? { base_url: o.baseUrl } : {}),
    ...(o.timeoutMs ? { timeout_ms: o.timeoutMs } : {}),
  };
}

/** The adapter bound to whichever fake the contract made last (its `adapter()` takes no arguments). */
export const contractAdapter = () =>
  createLiveKitAdapter({ channelFactory: (opts) => current!.factory(opts), greetingWindowMs: TEST_GREETING_WINDOW_MS });
