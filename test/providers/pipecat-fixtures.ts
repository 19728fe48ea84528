import { createPipecatAdapter } from '../../src/providers/pipecat.js';
import { startFakePipecat, type FakePipecat, type FakePipecatOptions } from '../fakes/pipecat.js';
import type { ContractAgent, ContractConfigOptions, ContractFake } from './adapter-contract.js';

// provider_3 test fixtures: the fake Pipecat Cloud API and its fake RTVI bot, wrapped for the shared contract.

/** Short windows keep the suite fast; the production defaults are in pipecat.ts. */
export const TEST_GREETING_WINDOW_MS = 300;
export const TEST_SETTLE_MS = 30;

export interface PipecatContractFake extends ContractFake {
  server: FakePipecat;
}

export async function makePipecatFake(opts: FakePipecatOptions = {}): Promise<PipecatContractFake> {
  const server = await startFakePipecat(opts);
  let agent: ContractAgent = { greeting: null, reply: (t) => ({ content: t }) };
  let latency = 0;
  const heard: string[] = [];
  let waiters: (() => void)[] = [];
  server.setBot({
    get greeting() {
      return agent.greeting === null ? undefined : { text: agent.greeting };
    },
    reply: (text, history) => {
      heard.push(text);
      waiters.splice(0).forEach((w) => w());
      const r = agent.reply(text, history.length - 1);
      return { text: r.content, tools: r.tool_calls?.map((c) => ({ name: c.name, arguments: c.arguments, result: c.result })), delayMs: latency };
    },
  });
  return {
    server,
    setAgent: (a) => { agent = a; },
    inject: (fault, o = {}) => server.inject(fault, { on: 'start', times: o.times, retryAfter: o.retryAfter }),
    setLatency: (ms) => { latency = ms; },
    heard: () => [...heard],
    nextTurn: () => new Promise((r) => waiters.push(r)),
    openSessions: () => server.openSockets(),
    lastCostUsd: () => null, // no rate configured: Pipecat Cloud reports no cost
    close: () => { waiters = []; return server.close(); },
  };
}

export function pipecatConfig(fake: ContractFake, o: ContractConfigOptions = {}): Record<string, unknown> {
  const server = (fake as PipecatContractFake).server;
  return {
    public_api_key: o.badKey ? 'pk_wrong_public_key' : server.publicKey,
    private_api_key: o.badKey ? 'sk_wrong_private_key' : server.privateKey,
    agent_name: o.unknownAgent ? 'nobody' : server.agentName,
    base_url: o.baseUrl ?? server.baseUrl,
    ...(o.timeoutMs ? { timeout_ms: o.timeoutMs } : {}),
  };
}

export const contractAdapter = () => createPipecatAdapter({ greetingWindowMs: TEST_GREETING_WINDOW_MS, settleMs: TEST_SETTLE_MS });
