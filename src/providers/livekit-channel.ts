// The media/text layer of the LiveKit adapter, kept behind a small interface so everything above it (rooms,
// dispatch, the reply logic) is testable without a LiveKit server. The real implementation joins the room with
// @livekit/rtc-node (a native WebRTC stack); tests substitute an in-memory channel (test/fakes/livekit.ts).

/** What arrives from the room, in order. One text stream on the output topic is one segment of agent speech. */
export type LiveKitInbound =
  /** A text stream opened. `final` is the `lk.transcription_final` header attribute ("true" on a complete segment). */
  | { type: 'stream_open'; streamId: string; segmentId: string; final: boolean }
  | { type: 'chunk'; streamId: string; text: string }
  /** The stream ended (normally, or with `error` when the sender aborted it). */
  | { type: 'stream_close'; streamId: string; error?: string }
  /** A complete text stream on `tool_events_topic`: JSON the agent publishes about its tool calls. */
  | { type: 'tool_event'; payload: string }
  /** The agent participant left the room: it hung up. */
  | { type: 'agent_left' }
  | { type: 'disconnected'; reason: string };

export interface LiveKitTextChannel {
  /** Sends one user turn on the input topic (the agent reads `lk.chat` from its linked participant). */
  send(text: string): Promise<void>;
  /** The inbound events; iterated once, ends after close(). */
  replies(): AsyncIterable<LiveKitInbound>;
  close(): Promise<void>;
}

export interface LiveKitChannelOptions {
  /** The signalling URL (wss://…) from the agent config. */
  url: string;
  /** Participant token: roomJoin for `room`, identity `identity`. */
  token: string;
  room: string;
  identity: string;
  agentName: string;
  inputTopic: string;
  outputTopic: string;
  toolEventsTopic: string | null;
  /** Resolving means: connected, and the agent participant is in the room (text sent earlier would be lost). */
  signal: AbortSignal;
}

export type LiveKitChannelFactory = (opts: LiveKitChannelOptions) => Promise<LiveKitTextChannel>;

/** An unbounded single-consumer queue that an async iterator drains. */
export class InboundQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiter: ((r: IteratorResult<T>) => void) | null = null;
  private ended = false;

  push(item: T): void {
    if (this.ended) return;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w({ value: item, done: false });
    } else this.items.push(item);
  }

  end(): void {
    this.ended = true;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.items.length > 0) return Promise.resolve({ value: this.items.shift() as T, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiter = resolve;
        });
      },
    };
  }
}

const ATTR_SEGMENT_ID = 'lk.segment_id';
const ATTR_FINAL = 'lk.transcription_final';

/**
 * Joins the room with @livekit/rtc-node. Loaded lazily so that processes which never talk to LiveKit (and the
 * tests, which use the in-memory channel) never load the native binary. Not exercised by the test suite: it
 * needs a LiveKit server and a dispatched agent worker.
 */
export const rtcNodeChannelFactory: LiveKitChannelFactory = async (opts) => {
  const rtc = await import('@livekit/rtc-node');
  const room = new rtc.Room();
  const queue = new InboundQueue<LiveKitInbound>();
  let agentIdentity: string | null = null;

  room.registerTextStreamHandler(opts.outputTopic, (reader, sender) => {
    // Transcripts of our own (non-existent) audio would carry our identity; only the agent's speech counts.
    if (sender.identity === opts.identity) return;
    const { streamId, attributes = {} } = reader.info;
    queue.push({ type: 'stream_open', streamId, segmentId: attributes[ATTR_SEGMENT_ID] ?? streamId, final: attributes[ATTR_FINAL] === 'true' });
    (async () => {
      try {
        for await (const text of reader) queue.push({ type: 'chunk', streamId, text });
        queue.push({ type: 'stream_close', streamId });
      } catch (err) {
        queue.push({ type: 'stream_close', streamId, error: err instanceof Error ? err.message : String(err) });
      }
    })();
  });
  if (opts.toolEventsTopic) {
    room.registerTextStreamHandler(opts.toolEventsTopic, (reader) => {
      reader.readAll().then((payload) => queue.push({ type: 'tool_event', payload }), () => undefined);
    });
  }

  const isAgent = (p: { kind: unknown; identity: string }) => p.kind === rtc.ParticipantKind.AGENT;
  let agentJoined: () => void = () => undefined;
  const joined = new Promise<void>((resolve) => {
    agentJoined = resolve;
  });
  room.on(rtc.RoomEvent.ParticipantConnected, (p) => {
    if (agentIdentity === null && isAgent(p)) {
      agentIdentity = p.identity;
      agentJoined();
    }
  });
  room.on(rtc.RoomEvent.ParticipantDisconnected, (p) => {
    if (p.identity === agentIdentity) queue.push({ type: 'agent_left' });
  });
  room.on(rtc.RoomEvent.Disconnected, (reason) => queue.push({ type: 'disconnected', reason: String(reason) }));

  const leave = async () => {
    queue.end();
    await room.disconnect().catch(() => undefined);
  };
  const onAbort = () => void leave();
  opts.signal.addEventListener('abort', onAbort, { once: true });
  try {
    // Audio is never subscribed: the test speaks and listens in text only.
    // The config accepts the project URL as https:// too; signalling is the websocket form of it.
    await room.connect(opts.url.replace(/^http(s?):/i, 'ws$1:'), opts.token, { autoSubscribe: false, dynacast: false });
    for (const p of room.remoteParticipants.values()) {
      if (agentIdentity === null && isAgent(p)) {
        agentIdentity = p.identity;
        agentJoined();
      }
    }
    await new Promise<void>((resolve, reject) => {
      if (opts.signal.aborted) return reject(opts.signal.reason);
      opts.signal.addEventListener('abort', () => reject(opts.signal.reason), { once: true });
      joined.then(resolve);
    });
  } catch (err) {
    await leave();
    throw err;
  } finally {
    opts.signal.removeEventListener('abort', onAbort);
  }

  return {
    async send(text) {
      await room.localParticipant!.sendText(text, { topic: opts.inputTopic, destinationIdentities: agentIdentity ? [agentIdentity] : undefined });
    },
    replies: () => queue,
    close: leave,
  };
};
