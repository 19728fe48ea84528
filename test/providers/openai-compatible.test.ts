import { createOpenAiCompatibleAdapter } from '../../src/providers/openai-compatible.js';
import { startFakeOpenAi, type FakeOpenAiServer, type WireMessage } from '../fakes/openai-agent.js';
import { adapterContract, type ContractAgent, type ContractFake } from './adapter-contract.js';

// provider_4 through the shared contract. Its own edge cases live in src/providers/openai-compatible.test.ts.
// A completion endpoint never speaks first and holds no session; tools are answered from `tool_mocks`.

interface Provider4Fake extends ContractFake {
  server: FakeOpenAiServer;
}

async function makeFake(): Promise<Provider4Fake> {
  const server = await startFakeOpenAi();
  let agent: ContractAgent = { greeting: null, reply: (t) => ({ content: t }) };
  const heard: string[] = [];
  let turnWaiters: (() => void)[] = [];
  server.setReply((messages: WireMessage[]) => {
    const last = messages[messages.length - 1];
    const users = messages.filter((m) => m.role === 'user');
    const text = users[users.length - 1]?.content ?? '';
    const reply = agent.reply(text, users.length - 1);
    // The second round of a tool turn: the tool results are in, the agent now says its text.
    if (last.role === 'tool') return { content: reply.content };
    heard.push(text);
    turnWaiters.splice(0).forEach((w) => w());
    if (reply.tool_calls?.length) return { content: null, tool_calls: reply.tool_calls.map((c) => ({ name: c.name, arguments: c.arguments })) };
    return { content: reply.content };
  });
  return {
    server,
    setAgent: (a) => { agent = a; },
    inject: (fault, o = {}) => server.inject(fault, { times: o.times, retryAfter: o.retryAfter }),
    setLatency: (ms) => server.setLatency(ms),
    heard: () => [...heard],
    // The fake delays before it reads the request, so "received" is the request arriving.
    nextTurn: () => server.nextRequest().then(() => undefined),
    openSessions: () => 0,
    lastCostUsd: () => null,
    close: () => {
      turnWaiters = [];
      return server.close();
    },
  };
}

adapterContract(
  'provider_4 (OpenAI-compatible)',
  makeFake,
  (fake, o = {}) => ({
    base_url: o.baseUrl ?? (fake as Provider4Fake).server.baseUrl,
    model: 'agent-model',
    api_key: o.badKey ? 'sk-wrong-key-0000' : 'sk-test',
    ...(o.timeoutMs ? { timeout_ms: o.timeoutMs } : {}),
    ...(o.toolResults ? { tool_mocks: o.toolResults } : {}),
  }),
  { adapter: () => createOpenAiCompatibleAdapter(), greeting: false, sessions: false, validateNotFound: false },
);
