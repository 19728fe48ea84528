// The wire format of Pipecat's ProtobufFrameSerializer (pipecat src/pipecat/frames/frames.proto and
// serializers/protobuf.py): every websocket message is a binary `Frame` with a oneof of
//   1 TextFrame {id, name, text}, 2 AudioRawFrame, 3 TranscriptionFrame, 4 MessageFrame {string data = 1}.
// RTVI messages travel as MessageFrame.data = the JSON text of the message. Four message types and one string
// field do not justify a protobuf runtime; this is the whole codec.

export type PipecatFrame =
  | { kind: 'message'; data: string }
  | { kind: 'text'; text: string }
  | { kind: 'audio' }
  | { kind: 'transcription'; text: string }
  | { kind: 'unknown' };

const FIELD = { text: 1, audio: 2, transcription: 3, message: 4 } as const;
const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_I32 = 5;

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

function lenField(field: number, payload: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([(field << 3) | WIRE_LEN, ...varint(payload.length)]), payload]);
}

/** `Frame{message: MessageFrame{data: json}}`, the way the bot's serializer reads an RTVI message. */
export function encodeMessageFrame(json: string): Buffer {
  return lenField(FIELD.message, lenField(1, Buffer.from(json, 'utf8')));
}

/** A text frame, as some bots (and the fake bot's tests) use; not sent by the adapter. */
export function encodeTextFrame(text: string): Buffer {
  return lenField(FIELD.text, lenField(3, Buffer.from(text, 'utf8')));
}

/** An audio frame with only a payload: lets fakes prove that audio is skipped. */
export function encodeAudioFrame(audio: Uint8Array): Buffer {
  return lenField(FIELD.audio, lenField(3, audio));
}

interface Field {
  no: number;
  wire: number;
  bytes?: Buffer;
}

/** Top-level fields of one message; throws on truncated input. */
function readFields(buf: Buffer): Field[] {
  const fields: Field[] = [];
  let i = 0;
  const readVarint = (): number => {
    let result = 0;
    let mul = 1;
    for (let n = 0; n < 10; n++) {
      if (i >= buf.length) throw new Error('truncated varint');
      const b = buf[i++];
      result += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return result;
      mul *= 128;
    }
    throw new Error('varint too long');
  };
  while (i < buf.length) {
    const tag = readVarint();
    const no = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === WIRE_VARINT) readVarint();
    else if (wire === WIRE_I64) i += 8;
    else if (wire === WIRE_I32) i += 4;
    else if (wire === WIRE_LEN) {
      const len = readVarint();
      if (i + len > buf.length) throw new Error('truncated field');
      fields.push({ no, wire, bytes: buf.subarray(i, i + len) });
      i += len;
      continue;
    } else throw new Error(`unsupported wire type ${wire}`);
    if (i > buf.length) throw new Error('truncated field');
    fields.push({ no, wire });
  }
  return fields;
}

function stringField(msg: Buffer, no: number): string {
  const f = readFields(msg).filter((x) => x.no === no && x.bytes);
  return f.length ? f[f.length - 1].bytes!.toString('utf8') : '';
}

/** Decodes one binary websocket message; `unknown` for anything that is not a Frame we care about. */
export function decodeFrame(buf: Buffer): PipecatFrame {
  let fields: Field[];
  try {
    fields = readFields(buf);
  } catch {
    return { kind: 'unknown' };
  }
  const f = fields.find((x) => x.bytes && x.no >= FIELD.text && x.no <= FIELD.message);
  if (!f?.bytes) return { kind: 'unknown' };
  try {
    switch (f.no) {
      case FIELD.message:
        return { kind: 'message', data: stringField(f.bytes, 1) };
      case FIELD.text:
        return { kind: 'text', text: stringField(f.bytes, 3) };
      case FIELD.transcription:
        return { kind: 'transcription', text: stringField(f.bytes, 3) };
      default:
        return { kind: 'audio' };
    }
  } catch {
    return { kind: 'unknown' };
  }
}
