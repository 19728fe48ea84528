import { TokenVerifier } from 'livekit-server-sdk';
import { InboundQueue, type LiveKitChannelFactory, type LiveKitInbound } from '../../src/providers/livekit-channel.js';

// The in-memory stand-in for a LiveKit room with a LiveKit Agents worker in it. It behaves like the real pieces
// where the adapter can tell: the participant token must be valid for this room (roomJoin, identity), the agent
// only joins a room the server API created and dispatched it to, it reads only `lk.chat` and writes its speech
// as delta text streams on `lk.transcription` (one stream per segment, `lk.segment_id`, `lk.transcription_final`
// "false", closed when the segment is flushed: agents-js room_io/_output.ts), and deleting the room
// disconnects everyone.

export interface FakeAgentTurn {
  /** Each segment is one text stream: a string is one chunk, an array is sent chunk by chunk. */
  segments: (string | string[])[];
  /** JSON payloads the agent publishes on its tool topic: before its speech, or after the first segment. */
  toolEvents?: unknown[];
  toolsAfterFirstSegment?: boolean;
  /** Thinking time before the agent starts answering. */
  delayMs?: number;
  /** Pause before every chunk and stream event (default 5 ms). */
  gapMs?: number;
  /** Pause between segments (default gapMs), e.g. a tool that takes a while. */
  segmentGapMs?: number;
  /** The agent leaves the room after this turn. */
  hangUp?: boolean;
  /** The last stream is never closed (an agent stuck mid-segment). */
  leaveOpen?: boolean;
}

export interface FakeLiveKitAgent {
  greeting?: FakeAgentTurn;
  reply: (text: string, history: string[]) => FakeAgentTurn | string;
  joinDelayMs?: number;
  /** Topic the agent publishes tool events on (only delivered if the adapter subscribes to it). */
  toolTopic?: string;
}

export interface ChannelRecord {
  room: string;
  identity: string;
  /** Text the agent received on lk.chat. */
  received: string[];
  /** Everything the adapter sent, with its topic. */
  sent: { topic: string; text: string }[];
  closed: boolean;
}

export interface MemoryRoomRegistry {
  roomExists(room: string): boolean;
  dispatchedAgent(room: string, agentName: string): boolean;
  onRoomDeleted: Set<(room: string) => void>;
  secret: { apiKey: string; apiSecret: string };
  channels?: ChannelRecord[];
}

const AGENT_INPUT_TOPIC = 'lk.chat';
const AGENT_OUTPUT_TOPIC = 'lk.transcription';

export function createMemoryChannelFactory(registry: MemoryRoomRegistry, agent: FakeLiveKitAgent, o: { agentName?: string } = {}): LiveKitChannelFactory {
  registry.channels ??= [];
  const verifier = new TokenVerifier(registry.secret.apiKey, registry.secret.apiSecret);
  let seq = 0;

  return async (opts) => {
    let claims: { sub?: string; video?: { roomJoin?: boolean; room?: string; canPublishData?: boolean } };
    try {
      claims = (await verifier.verify(opts.token)) as typeof claims;
    } catch (err) {
      throw new Error(`could not establish signal connection: 401 ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!claims.video?.roomJoin || claims.video.room !== opts.room || claims.sub !== opts.identity || !claims.video.canPublishData) {
      throw new Error('could not establish signal connection: 401 permissions denied');
    }
    if (!registry.roomExists(opts.room)) throw new Error('could not establish signal connection: 404 room not found');

    const record: ChannelRecord = { room: opts.room, identity: opts.identity, received: [], sent: [], closed: false };
    registry.channels!.push(record);
    const queue = new InboundQueue<LiveKitInbound>();
    const timers = new Set<NodeJS.Timeout>();
    const wait = (ms: number) => new Promise<void>((r) => { const t = setTimeout(() => { timers.delete(t); r(); }, ms); timers.add(t); });
    const history: string[] = [];
    let playing: Promise<void> = Promise.resolve();
    let agentPresent = false;

    const deliver = (topic: string, ev: LiveKitInbound) => {
      if (record.closed) return;
      if (topic === AGENT_OUTPUT_TOPIC && topic === opts.outputTopic) queue.push(ev);
      else if (topic !== AGENT_OUTPUT_TOPIC && topic === opts.toolEventsTopic) queue.push(ev);
    };
    const play = (turn: FakeAgentTurn) => {
      playing = playing.then(async () => {
        const gap = turn.gapMs ?? 5;
        const tools = () => {
          for (const t of turn.toolEvents ?? []) deliver(agent.toolTopic ?? 'agent.tools', { type: 'tool_event', payload: JSON.stringify(t) });
        };
        if (turn.delayMs) await wait(turn.delayMs);
        if (!turn.toolsAfterFirstSegment) tools();
        for (const [i, seg] of turn.segments.entries()) {
          if (i > 0) await wait(turn.segmentGapMs ?? gap);
          const streamId = `TS_${++seq}`;
          deliver(AGENT_OUTPUT_TOPIC, { type: 'stream_open', streamId, segmentId: `SG_${seq}`, final: false });
          for (const chunk of Array.isArray(seg) ? seg : [seg]) {
            await wait(gap);
            deliver(AGENT_OUTPUT_TOPIC, { type: 'chunk', streamId, text: chunk });
          }
          await wait(gap);
          const last = i === turn.segments.length - 1;
          if (!(last && turn.leaveOpen)) deliver(AGENT_OUTPUT_TOPIC, { type: 'stream_close', streamId });
          if (i === 0 && turn.toolsAfterFirstSegment) tools();
        }
        if (turn.hangUp) {
          agentPresent = false;
          if (!record.closed) queue.push({ type: 'agent_left' });
        }
      });
    };
    const onDeleted = (room: string) => {
      if (room !== opts.room || record.closed) return;
      queue.push({ type: 'disconnected', reason: 'ROOM_DELETED' });
      queue.end();
    };
    registry.onRoomDeleted.add(onDeleted);
    const close = async () => {
      record.closed = true;
      registry.onRoomDeleted.delete(onDeleted);
      timers.forEach(clearTimeout);
      queue.end();
    };

    // The worker joins only a room it was dispatched to; until then (or forever) the caller waits.
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => { void close(); reject(opts.signal.reason); };
      if (opts.signal.aborted) return onAbort();
      opts.signal.addEventListener('abort', onAbort, { once: true });
      if (!registry.dispatchedAgent(opts.room, o.agentName ?? opts.agentName)) return;
      wait(agent.joinDelayMs ?? 5).then(() => {
        opts.signal.removeEventListener('abort', onAbort);
        agentPresent = true;
        resolve();
      });
    });
    if (agent.greeting) play(agent.greeting);

    return {
      async send(text) {
        if (record.closed) throw new Error('room is closed');
        record.sent.push({ topic: opts.inputTopic, text });
        if (opts.inputTopic !== AGENT_INPUT_TOPIC || !agentPresent) return; // the agent never hears it
        record.received.push(text);
        history.push(text);
        const turn = agent.reply(text, [...history]);
        play(typeof turn === 'string' ? { segments: [turn] } : turn);
      },
      replies: () => queue,
      close,
    };
  };
}
