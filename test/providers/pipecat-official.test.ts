import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RTVIMessage, RTVIMessageType, RTVI_MESSAGE_LABEL, type AboutClientData, type SendTextOptions } from '@pipecat-ai/client-js';
import { systemClock } from '../../src/lib/clock.js';
import type { ScenarioSpec } from '../../src/engine/types.js';
import { createPipecatAdapter } from '../../src/providers/pipecat.js';
import { startFakePipecat, type FakePipecat } from '../fakes/pipecat.js';
import { TEST_GREETING_WINDOW_MS, TEST_SETTLE_MS } from './pipecat-fixtures.js';

// provider_3's RTVI messages checked against @pipecat-ai/client-js 1.13.1, the official client: the messages
// the adapter sends are the ones the official client builds (its own constructors where it has them), and the
// fake bot's messages are typed by the client's data types (test/fakes/pipecat-bot.ts) and parsed by the official
// client at runtime in pipecat-official-inbound.test.ts.

const scenario: ScenarioSpec = { id: 's', name: 'S', persona: null, goal: null, instructions: null, opening_message: null, script: ['hi'], criteria: [], pass_threshold: 0.75, max_turns: null };
const live = () => new AbortController().signal;

let fake: FakePipecat;
beforeEach(async () => { fake = await startFakePipecat(); });
afterEach(() => fake.close());

describe('provider_3 against @pipecat-ai/client-js', () => {
  it('client-ready, send-text and disconnect-bot are shaped as the official client sends them', async () => {
    const adapter = createPipecatAdapter({ greetingWindowMs: TEST_GREETING_WINDOW_MS, settleMs: TEST_SETTLE_MS });
    const s = await adapter.openSession({ config: { public_api_key: fake.publicKey, private_api_key: fake.privateKey, agent_name: fake.agentName, base_url: fake.baseUrl }, scenario, runId: 'r', scenarioRunId: 'sr', signal: live(), clock: systemClock });
    await s.send('Hello', live());
    await s.close('completed');
    const got = fake.connections[0].received;
    const byType = (t: string) => got.find((m) => m.type === t)!;

    const ready = RTVIMessage.clientReady();
    expect(byType(RTVIMessageType.CLIENT_READY).data.version).toBe((ready.data as { version: string }).version);
    const aboutKeys = Object.keys({ library: '', library_version: '', platform: '', platform_version: '', platform_details: {} } satisfies AboutClientData);
    for (const k of Object.keys(byType(RTVIMessageType.CLIENT_READY).data.about)) expect(aboutKeys).toContain(k);

    const options: SendTextOptions = { run_immediately: true, audio_response: false };
    expect(byType(RTVIMessageType.SEND_TEXT).data).toEqual({ content: 'Hello', options });
    expect(byType(RTVIMessageType.DISCONNECT_BOT).data).toEqual(RTVIMessage.disconnectBot().data);
    for (const m of got) expect(typeof m.id).toBe('string');
    expect(ready.label).toBe(RTVI_MESSAGE_LABEL);
  });

  it('the official error message carries its text in `error`, the field the fake bot sends and the adapter reads first', async () => {
    const official = RTVIMessage.error('pipeline crashed', true);
    expect(official.data).toMatchObject({ error: 'pipeline crashed', fatal: true });
  });
});
