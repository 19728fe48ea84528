import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeOpenAi, type FakeOpenAiServer } from '../fakes/openai-agent.js';

// The world the dashboard test looks at: a dental-practice agent behind a fake OpenAI-compatible endpoint
// (with one tool), three scripted scenarios with deterministic checks, and a webhook endpoint.

export const SCENARIOS = [
  {
    name: 'E2E Book a cleaning',
    description: 'The caller books a teeth cleaning for Tuesday morning.',
    category: 'booking-and-changes',
    tags: ['booking', 'e2e'],
    script: ['Hi, I would like to book a teeth cleaning.', 'Tuesday morning works for me.', 'Thanks, that is all.'],
    criteria: [
      { criterion: 'Confirms the booking', check: { type: 'contains', value: 'booked', role: 'assistant' }, required: true },
      { criterion: 'Checks availability before booking', check: { type: 'tool_called', name: 'check_availability' } },
      { criterion: 'Stays polite throughout', check: null },
    ],
  },
  {
    name: 'E2E Ask for prices',
    description: 'The caller wants to know what a cleaning and a check-up cost.',
    category: 'billing-and-refunds',
    tags: ['pricing', 'e2e'],
    script: ['How much is a cleaning?', 'And how much is a check-up?', 'Thanks, bye.'],
    criteria: [{ criterion: 'Quotes a price in dollars', check: { type: 'contains', value: '$', role: 'assistant' } }],
  },
  {
    name: 'E2E Polite goodbye',
    description: 'The caller ends the call; the agent should say goodbye.',
    category: 'greeting-and-identification',
    tags: ['closing', 'e2e'],
    script: ['That is all I needed.', 'Have a nice day.'],
    criteria: [{ criterion: 'Says goodbye', check: { type: 'contains', value: 'goodbye', role: 'assistant' } }],
  },
];

export const AGENT_TOOLS = [{ type: 'function', function: { name: 'check_availability', description: 'Free slots on a day', parameters: { type: 'object', properties: { day: { type: 'string' } } } } }];
export const TOOL_MOCKS = { check_availability: { day: 'Tuesday', free_slots: ['09:00', '11:30'] } };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Replies vary a little in latency, so the latency chart has a shape. */
export function startDentalAgent(): Promise<FakeOpenAiServer> {
  return startFakeOpenAi({
    reply: async (messages) => {
      await sleep(30 + Math.floor(Math.random() * 220));
      const last = messages[messages.length - 1];
      if (last.role === 'tool') return 'Good news: Tuesday at 9am is free. Done, you are booked for Tuesday at 9am.';
      const said = last.content ?? '';
      if (/book a teeth cleaning/i.test(said)) return { tool_calls: [{ name: 'check_availability', arguments: { day: 'Tuesday' } }] };
      if (/how much/i.test(said)) return /check-up/i.test(said) ? 'A check-up is $60.' : 'A cleaning is $80.';
      if (/tuesday/i.test(said)) return 'Tuesday it is. Anything else?';
      return 'Happy to help. Is there anything else I can do for you?';
    },
  });
}

/** A webhook endpoint that answers 200 to everything and counts what it got. */
export async function startHookEndpoint(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let n = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => { n++; res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'); });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/rehearsal`,
    received: () => n,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
