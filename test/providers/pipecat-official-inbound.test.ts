import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import {
  LogLevel, PipecatClient, RTVIMessage, Transport, type PipecatClientOptions, type RTVIEventCallbacks, type Tracks, type TransportState,
} from '@pipecat-ai/client-js';
import { decodeFrame, encodeMessageFrame } from '../../src/providers/pipecat-wire.js';
import { startFakePipecat, type FakeBotBehaviour, type FakePipecat } from '../fakes/pipecat.js';

// Why: the fake bot's messages are only *typed* with @pipecat-ai/client-js's data types, which cannot tell whether
// the official client accepts them at runtime (message type strings, where the id goes, data left as the client
// expects). Here the official PipecatClient 1.13.1 itself talks to the fake bot: it starts the session with its own
// startBot() against the fake /start, sends its own client-ready / send-text / disconnect-bot, and every RTVI
// message the fake sends back is fed, unchanged, to the client's own handleMessage through the message handler the
// client hands its Transport. Each test asserts that the sequence of client callbacks equals the sequence of
// messages on the wire (so a type the client ignores, or data it rewrites, fails the test) and that the callbacks
// carry the expected values. Only the transport is ours: a Transport subclass that carries RTVI JSON inside
// Pipecat's protobuf MessageFrame (the same framing as the websocket transport + ProtobufFrameSerializer), using
// src/providers/pipecat-wire.ts. The one browser global: the PipecatClient constructor reads `window?.navigator`
// (learnAboutClient), which throws in Node without a `window`, so each test stubs `window` as an empty object (no
// navigator); mic/cam are disabled so the client never asks for devices.

type Wire = { type: string; id?: string; data?: unknown };

/** Every kind of message test/fakes/pipecat-bot.ts can send (its BotMessages); the last test checks all were seen. */
const BOT_MESSAGE_KINDS = [
  'bot-ready', 'error', 'error-response', 'bot-output', 'bot-llm-text', 'bot-transcription', 'llm-function-call',
  'llm-function-call-started', 'llm-function-call-in-progress', 'llm-function-call-stopped', 'metrics',
  'bot-llm-started', 'bot-llm-stopped', 'bot-started-speaking', 'bot-stopped-speaking',
];
const covered = new Set<string>();

class FakeBotTransport extends Transport {
  inbound: Wire[] = [];
  outbound: RTVIMessage[] = [];
  private ws: WebSocket | null = null;

  initialize(options: PipecatClientOptions, messageHandler: (ev: RTVIMessage) => void): void {
    this._options = options;
    this._callbacks = options.callbacks ?? {};
    this._onMessage = messageHandler;
    this.state = 'initialized';
  }
  async initDevices(): Promise<void> { /* no media: mic and cam are disabled */ }
  _validateConnectionParams(p?: unknown): unknown {
    const o = p as { wsUrl?: unknown; token?: unknown };
    if (typeof o?.wsUrl !== 'string') throw new Error('wsUrl missing');
    return o;
  }
  async _connect(p?: unknown): Promise<void> {
    const { wsUrl, token } = p as { wsUrl: string; token?: string };
    this.state = 'connecting';
    const ws = new WebSocket(wsUrl, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    this.ws = ws;
    ws.on('message', (raw, isBinary) => {
      if (!isBinary) return;
      const frame = decodeFrame(raw as Buffer);
      if (frame.kind !== 'message') return;
      const m = JSON.parse(frame.data) as Wire & { label?: string };
      if (m.label !== 'rtvi-ai') return;
      this.inbound.push({ type: m.type, ...(m.id === undefined ? {} : { id: m.id }), data: m.data });
      // As the official transports do: bot-ready puts the transport in "ready", then the client handles the message.
      if (m.type === 'bot-ready') this.state = 'ready';
      this._onMessage(m as RTVIMessage);
    });
    ws.on('close', () => { this.state = 'disconnected'; this._callbacks.onDisconnected?.(); });
    await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
    this.state = 'connected';
    this._callbacks.onConnected?.();
  }
  async _disconnect(): Promise<void> {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.close(1000);
    this.state = 'disconnected';
  }
  sendReadyMessage(): void { this.sendMessage(RTVIMessage.clientReady()); }
  sendMessage(message: RTVIMessage): void {
    this.outbound.push(message);
    this.ws?.send(encodeMessageFrame(JSON.stringify(message)));
  }
  get state(): TransportState { return this._state; }
  set state(s: TransportState) {
    if (this._state === s) return;
    this._state = s;
    this._callbacks?.onTransportStateChanged?.(s);
  }
  async getAllMics() { return []; }
  async getAllCams() { return []; }
  async getAllSpeakers() { return []; }
  updateMic(): void {}
  updateCam(): void {}
  updateSpeaker(): void {}
  get selectedMic() { return {}; }
  get selectedCam() { return {}; }
  get selectedSpeaker() { return {}; }
  enableMic(): void {}
  enableCam(): void {}
  enableScreenShare(): void {}
  get isCamEnabled() { return false; }
  get isMicEnabled() { return false; }
  get isSharingScreen() { return false; }
  tracks(): Tracks { return { local: {} }; }
}

let fake: FakePipecat;
let transport: FakeBotTransport;
let client: PipecatClient;
/** What the client's callbacks reported, in RTVI terms: the message type each callback stands for, and its data. */
let seen: Wire[];

const until = async (cond: () => boolean) => { for (let i = 0; i < 150 && !cond(); i++) await new Promise((r) => setTimeout(r, 20)); return cond(); };
const count = (type: string) => seen.filter((m) => m.type === type).length;
const dataOf = <T>(type: string) => seen.filter((m) => m.type === type).map((m) => m.data as T);

function makeClient(): PipecatClient {
  const on = (type: string) => (data?: unknown) => { seen.push({ type, data }); };
  const callbacks: RTVIEventCallbacks = {
    onBotReady: on('bot-ready'),
    onError: (m) => { seen.push({ type: m.type, data: m.data }); },
    onMessageError: (m) => { seen.push({ type: m.type, id: m.id, data: m.data }); },
    onServerMessage: on('server-message'),
    onBotOutput: on('bot-output'),
    onBotLlmText: on('bot-llm-text'),
    onBotTranscript: on('bot-transcription'),
    onLLMFunctionCall: on('llm-function-call'),
    onLLMFunctionCallStarted: on('llm-function-call-started'),
    onLLMFunctionCallInProgress: on('llm-function-call-in-progress'),
    onLLMFunctionCallStopped: on('llm-function-call-stopped'),
    onMetrics: on('metrics'),
    onBotLlmStarted: on('bot-llm-started'),
    onBotLlmStopped: on('bot-llm-stopped'),
    onBotStartedSpeaking: on('bot-started-speaking'),
    onBotStoppedSpeaking: on('bot-stopped-speaking'),
  };
  const c = new PipecatClient({ transport, enableMic: false, enableCam: false, callbacks });
  c.setLogLevel(LogLevel.NONE); // its debug log prints every message; the assertions below are what counts
  return c;
}

async function connect(bot: FakeBotBehaviour) {
  fake.setBot(bot);
  // The official client's own startBot() against the fake Pipecat Cloud /start, then connect() with its answer.
  await client.startBotAndConnect({
    endpoint: `${fake.baseUrl}/v1/public/${fake.agentName}/start`,
    headers: new Headers({ authorization: `Bearer ${fake.publicKey}` }),
    requestData: { createDailyRoom: false, transport: 'websocket' },
  });
}

/** The client dispatched every message from the bot, in order, to the matching callback, with its data unchanged. */
function expectEveryMessageHandled() {
  expect(transport.inbound.length).toBeGreaterThan(0);
  expect(seen).toEqual(transport.inbound.map((m) => (m.type === 'error-response' ? m : { type: m.type, data: m.data })));
  for (const m of transport.inbound) covered.add(m.type);
}

const sentOfType = (type: string) => transport.outbound.filter((m) => m.type === type);
const llmText = () => dataOf<{ text: string }>('bot-llm-text').map((d) => d.text).join('');

beforeEach(async () => {
  fake = await startFakePipecat();
  vi.stubGlobal('window', {});
  transport = new FakeBotTransport();
  seen = [];
  client = makeClient();
});
afterEach(async () => {
  await client.disconnect().catch(() => undefined);
  await fake.close();
  vi.unstubAllGlobals();
});

describe('the fake Pipecat bot, as parsed by the official @pipecat-ai/client-js', () => {
  it('bot-ready, a version-warning error-response, a greeting, a 2.x answer and a refused disconnect-bot', async () => {
    await connect({ versionWarning: 'client RTVI version is older than the bot', greeting: { text: 'Welcome. How can I help?' }, rejectDisconnect: true });
    expect(dataOf('bot-ready')).toEqual([{ version: '2.1.0', about: { library: 'fake-pipecat' } }]);
    const warning = seen.find((m) => m.type === 'error-response')!;
    expect(warning).toMatchObject({ id: sentOfType('client-ready')[0].id, data: { error: 'client RTVI version is older than the bot' } });
    await until(() => count('bot-llm-stopped') === 1 && count('metrics') === 1);

    await client.sendText('Hello', { run_immediately: true, audio_response: false });
    await until(() => count('bot-llm-stopped') === 2 && count('metrics') === 2);
    expect(llmText()).toBe('Welcome. How can I help?You said: Hello');
    expect(dataOf('bot-output')).toEqual([
      { text: 'Welcome.', aggregated_by: 'sentence', segment_id: 1, will_be_spoken: false, spoken_status: 'completed' },
      { text: 'How can I help?', aggregated_by: 'sentence', segment_id: 2, will_be_spoken: false, spoken_status: 'completed' },
      { text: 'You said: Hello', aggregated_by: 'sentence', segment_id: 3, will_be_spoken: false, spoken_status: 'completed' },
    ]);
    expect(dataOf('metrics')[0]).toEqual({ ttfb: [{ processor: 'FakeLLM#0', value: 0.01 }] });

    client.disconnectBot();
    await until(() => count('error-response') === 2);
    expect(seen.filter((m) => m.type === 'error-response')[1]).toMatchObject({ id: sentOfType('disconnect-bot')[0].id, data: { error: 'disconnect not supported by this transport' } });
    expectEveryMessageHandled();
  });

  it('a speaking bot with a non-fatal error, bot-output status updates, and an answer as bot-transcription', async () => {
    await connect({
      reply: (text) => (text === 'first'
        ? { text: 'Sure. Done!', speak: true, warning: 'tts degraded' }
        : { text: 'Transcribed answer.', output: 'bot-transcription' }),
    });
    await client.sendText('first', { run_immediately: true, audio_response: false });
    await until(() => count('bot-stopped-speaking') === 1);
    expect(dataOf('error')).toEqual([{ error: 'tts degraded', fatal: false }]);
    expect(count('bot-started-speaking')).toBe(1);
    expect(dataOf<{ text: string; spoken_status: string }>('bot-output').map((d) => `${d.text}:${d.spoken_status}`)).toEqual([
      'Sure.:new', 'Sure.:in-progress', 'Sure.:completed', 'Done!:new', 'Done!:in-progress', 'Done!:completed',
    ]);

    await client.sendText('second', { run_immediately: true, audio_response: false });
    await until(() => count('metrics') === 2);
    expect(dataOf('bot-transcription')).toEqual([{ text: 'Transcribed answer.' }]);
    expectEveryMessageHandled();
  });

  it('a 1.x bot: bot-ready with version 1.0.0 and the 1.x bot-output format', async () => {
    await connect({ version: '1.0.0' });
    expect(dataOf<{ version: string }>('bot-ready')[0].version).toBe('1.0.0');
    await client.sendText('Hi', { run_immediately: true, audio_response: false });
    await until(() => count('metrics') === 1);
    expect(dataOf('bot-output')).toEqual([{ text: 'You said: Hi', spoken: false, aggregated_by: 'sentence' }]);
    expectEveryMessageHandled();
  });

  it('function calls: started / in-progress / stopped, and the deprecated llm-function-call answered by the client', async () => {
    await connect({
      reply: (text) => (text === 'new'
        ? { preamble: 'Let me check.', tools: [{ name: 'lookup_order', arguments: { id: 42 }, result: { status: 'shipped' } }], text: 'It shipped.' }
        : { legacyFunctionCall: true, tools: [{ name: 'get_time', arguments: { tz: 'UTC' }, result: null }], text: 'It is noon.' }),
    });
    await client.sendText('new', { run_immediately: true, audio_response: false });
    await until(() => count('metrics') === 1);
    expect(dataOf('llm-function-call-started')).toEqual([{ function_name: 'lookup_order' }]);
    expect(dataOf('llm-function-call-in-progress')).toEqual([{ function_name: 'lookup_order', tool_call_id: 'call_1', arguments: { id: 42 } }]);
    expect(dataOf('llm-function-call-stopped')).toEqual([{ function_name: 'lookup_order', tool_call_id: 'call_1', cancelled: false, result: { status: 'shipped' } }]);

    // The fake waits for llm-function-call-result: only a client that understood llm-function-call gets an answer.
    client.registerFunctionCallHandler('get_time', async ({ arguments: args }) => ({ time: '12:00', tz: args.tz }));
    await client.sendText('legacy', { run_immediately: true, audio_response: false });
    await until(() => count('metrics') === 2);
    expect(dataOf('llm-function-call')).toEqual([{ function_name: 'get_time', tool_call_id: 'call_2', args: { tz: 'UTC' } }]);
    expect(sentOfType('llm-function-call-result').map((m) => m.data)).toEqual([{ function_name: 'get_time', tool_call_id: 'call_2', arguments: { tz: 'UTC' }, result: { time: '12:00', tz: 'UTC' } }]);
    expect(dataOf<{ text: string }>('bot-output').map((d) => d.text)).toEqual(['Let me check.', 'It shipped.', 'It is noon.']);
    expectEveryMessageHandled();
  });

  it('a send-text refused with error-response (the request id) and a fatal error', async () => {
    await connect({ reply: (text) => (text === 'refuse' ? { reject: 'send-text is disabled' } : { fatalError: 'pipeline crashed' }) });
    await client.sendText('refuse', { run_immediately: true, audio_response: false });
    await until(() => count('error-response') === 1);
    expect(seen.find((m) => m.type === 'error-response')).toMatchObject({ id: sentOfType('send-text')[0].id, data: { error: 'send-text is disabled' } });

    await client.sendText('crash', { run_immediately: true, audio_response: false });
    await until(() => count('error') === 1);
    expect(dataOf('error')).toEqual([{ error: 'pipeline crashed', fatal: true }]);
    // The client treats `fatal: true` as fatal: it disconnects on its own.
    expect(await until(() => client.state === 'disconnected' && fake.connections[0].closed !== null)).toBe(true);
    expectEveryMessageHandled();
  });

  it('covered every kind of message the fake bot sends', () => {
    expect([...covered].sort()).toEqual([...BOT_MESSAGE_KINDS].sort());
  });
});
