import type WebSocket from 'ws';
import type { BotOutputData, BotReadyData, ErrorData, LLMFunctionCallData, LLMFunctionCallInProgressData, LLMFunctionCallStoppedData } from '@pipecat-ai/client-js';
import { decodeFrame, encodeAudioFrame, encodeMessageFrame } from '../../src/providers/pipecat-wire.js';

// A fake Pipecat bot behind the websocket transport with ProtobufFrameSerializer: it reads RTVI messages from
// MessageFrame.data and answers the way RTVIProcessor/RTVIObserver do (docs.pipecat.ai/client/rtvi-standard):
// bot-ready after client-ready; for send-text: bot-llm-started, bot-llm-text tokens, bot-output sentences,
// bot-llm-stopped; function calls as llm-function-call-started / -in-progress / -stopped followed by a second
// LLM run; optional speech events and audio frames for a bot that ignores audio_response:false.

export interface FakeBotTool {
  name: string;
  arguments: Record<string, unknown>;
  result: unknown;
  /** How long the function runs. */
  runMs?: number;
}

export interface FakeBotReply {
  /** The answer; spoken after the tools, if any. */
  text?: string;
  /** Said before the function calls ("let me check"). */
  preamble?: string;
  tools?: FakeBotTool[];
  /** Report the calls with the deprecated client-side `llm-function-call` and wait for the client's result. */
  legacyFunctionCall?: boolean;
  /** Send bot-started/stopped-speaking and audio, as a bot that speaks anyway. */
  speak?: boolean;
  /** Which text events carry the answer. */
  output?: 'bot-output' | 'bot-transcription' | 'llm-text';
  /** bot-llm-stopped goes out before the function-call events (the observer gives no ordering guarantee). */
  stopBeforeCalls?: boolean;
  gapMs?: number;
  /** Close the websocket (1000) after the reply: the bot hung up. */
  hangUp?: boolean;
  /** Send a fatal RTVI error instead of answering. */
  fatalError?: string;
  /** Send a non-fatal RTVI error before answering. */
  warning?: string;
  /** Answer the send-text with `error-response` (its id) carrying this text instead of answering. */
  reject?: string;
  /** Never finish: the LLM run starts and does not stop. */
  stall?: boolean;
  /** Thinking time before the bot reacts. */
  delayMs?: number;
}

export interface FakeBotBehaviour {
  greeting?: FakeBotReply;
  reply?: (text: string, history: string[]) => FakeBotReply | string;
  /** Do not answer client-ready (a bot without RTVI). */
  silent?: boolean;
  /** The RTVI version in bot-ready, and so the bot-output format: '1.0.0' or '2.1.0' (default). */
  version?: string;
  /** Answer client-ready with an `error-response` (a version warning) before bot-ready. */
  versionWarning?: string;
  /** Answer disconnect-bot with an `error-response` and stay connected until the client closes. */
  rejectDisconnect?: boolean;
}

export interface BotConnectionRecord {
  url: string;
  body: unknown;
  received: { type: string; id?: string; data?: any }[];
  closed: { code: number } | null;
}

// What the bot sends, typed by the official client's data types so the fake cannot drift from them.
interface BotMessages {
  'bot-ready': BotReadyData;
  'error': ErrorData;
  'error-response': { error: string };
  'bot-output': BotOutputData;
  'bot-llm-text': { text: string };
  'bot-transcription': { text: string };
  'llm-function-call': LLMFunctionCallData;
  'llm-function-call-started': { function_name?: string };
  'llm-function-call-in-progress': LLMFunctionCallInProgressData;
  'llm-function-call-stopped': LLMFunctionCallStoppedData;
  'metrics': { ttfb: { processor: string; value: number }[] };
  'bot-llm-started': undefined;
  'bot-llm-stopped': undefined;
  'bot-started-speaking': undefined;
  'bot-stopped-speaking': undefined;
}

const msg = (type: string, data?: unknown, id?: string) =>
  encodeMessageFrame(JSON.stringify({ label: 'rtvi-ai', type, ...(id === undefined ? {} : { id }), ...(data === undefined ? {} : { data }) }));

/** `behaviour` is read per message, so a test can change the bot mid-conversation. */
export function runFakeBot(ws: WebSocket, behaviour: () => FakeBotBehaviour, record: BotConnectionRecord): void {
  const timers = new Set<NodeJS.Timeout>();
  const history: string[] = [];
  let chain: Promise<void> = Promise.resolve();
  let seq = 0;
  const pendingResults = new Map<string, () => void>();
  const wait = (ms: number) => new Promise<void>((r) => { const t = setTimeout(() => { timers.delete(t); r(); }, ms); timers.add(t); });
  let segment = 0;
  let major = 2;
  function send<T extends keyof BotMessages>(type: T, ...rest: BotMessages[T] extends undefined ? [] : [BotMessages[T], string?]): void {
    if (ws.readyState === ws.OPEN) ws.send(msg(type, rest[0], rest[1]));
  }

  async function llmRun(text: string, r: FakeBotReply) {
    const gap = r.gapMs ?? 3;
    send('bot-llm-started');
    const out = r.output ?? 'bot-output';
    for (const token of text.split(/(?<= )/)) {
      await wait(gap);
      send('bot-llm-text', { text: token });
    }
    if (out === 'bot-output') {
      for (const s of text.split(/(?<=[.!?])\s+/)) {
        if (major < 2) { send('bot-output', { text: s, spoken: Boolean(r.speak), aggregated_by: 'sentence' }); continue; }
        // 2.x: one segment per sentence, repeated as its spoken status changes when the bot speaks.
        const id = ++segment;
        const statuses = r.speak ? (['new', 'in-progress', 'completed'] as const) : (['completed'] as const);
        for (const spoken_status of statuses) send('bot-output', { text: s, aggregated_by: 'sentence', segment_id: id, will_be_spoken: Boolean(r.speak), spoken_status });
      }
    }
    if (out === 'bot-transcription') send('bot-transcription', { text });
  }

  async function answer(r: FakeBotReply, requestId?: string) {
    const gap = r.gapMs ?? 3;
    if (r.delayMs) await wait(r.delayMs);
    if (r.fatalError) return send('error', { error: r.fatalError, fatal: true });
    if (r.reject) return send('error-response', { error: r.reject }, requestId);
    if (r.warning) send('error', { error: r.warning, fatal: false });
    if (r.speak) { send('bot-started-speaking'); ws.send(encodeAudioFrame(new Uint8Array(320))); }
    if (r.stall) return send('bot-llm-started');
    if (r.tools?.length) {
      await llmRun(r.preamble ?? '', { ...r, output: r.preamble ? r.output : 'llm-text' });
      if (r.stopBeforeCalls) send('bot-llm-stopped');
      for (const tool of r.tools) {
        const id = `call_${++seq}`;
        if (r.legacyFunctionCall) {
          const got = new Promise<void>((resolve) => pendingResults.set(id, resolve));
          send('llm-function-call', { function_name: tool.name, tool_call_id: id, args: tool.arguments });
          await got;
          continue;
        }
        send('llm-function-call-started', { function_name: tool.name });
        send('llm-function-call-in-progress', { function_name: tool.name, tool_call_id: id, arguments: tool.arguments });
        if (!r.stopBeforeCalls) send('bot-llm-stopped');
        await wait(tool.runMs ?? gap);
        send('llm-function-call-stopped', { function_name: tool.name, tool_call_id: id, cancelled: false, result: tool.result });
      }
      await wait(gap);
    }
    await llmRun(r.text ?? '', r);
    await wait(gap);
    send('bot-llm-stopped');
    send('metrics', { ttfb: [{ processor: 'FakeLLM#0', value: 0.01 }] });
    if (r.speak) { await wait(gap); send('bot-stopped-speaking'); }
    if (r.hangUp) { await wait(gap); ws.close(1000, 'bot ended the call'); }
  }

  ws.on('message', (data, isBinary) => {
    if (!isBinary) return; // this bot uses the protobuf serializer: text frames are not decoded
    const frame = decodeFrame(data as Buffer);
    if (frame.kind !== 'message') return;
    const m = JSON.parse(frame.data) as { type: string; id?: string; data?: any; label?: string };
    if (m.label !== 'rtvi-ai') return;
    record.received.push({ type: m.type, id: m.id, data: m.data });
    if (m.type === 'client-ready' && !behaviour().silent) {
      const b = behaviour();
      const version = b.version ?? '2.1.0';
      major = Number.parseInt(version, 10);
      if (b.versionWarning) send('error-response', { error: b.versionWarning }, m.id);
      send('bot-ready', { version, about: { library: 'fake-pipecat' } });
      const g = behaviour().greeting;
      if (g) { chain = chain.then(() => answer(g)); }
    } else if (m.type === 'send-text') {
      const text = String(m.data?.content ?? '');
      history.push(text);
      const b = behaviour();
      const r = b.reply ? b.reply(text, [...history]) : `You said: ${text}`;
      chain = chain.then(() => answer(typeof r === 'string' ? { text: r } : r, m.id));
    } else if (m.type === 'llm-function-call-result') {
      pendingResults.get(String(m.data?.tool_call_id))?.();
    } else if (m.type === 'disconnect-bot') {
      if (behaviour().rejectDisconnect) send('error-response', { error: 'disconnect not supported by this transport' }, m.id);
      else ws.close(1000, 'client asked to disconnect');
    }
  });
  ws.on('close', (code) => { record.closed = { code }; timers.forEach(clearTimeout); });
}
