import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeAudioFrame, encodeMessageFrame, encodeTextFrame } from './pipecat-wire.js';

// The protobuf codec against bytes computed by hand from pipecat's frames.proto (Frame.message = field 4,
// MessageFrame.data = field 1, both length-delimited), so a drift from the real serializer shows up here.

describe('Pipecat protobuf frames', () => {
  it('encodes an RTVI message as Frame{message: MessageFrame{data}}', () => {
    expect([...encodeMessageFrame('{}')]).toEqual([0x22, 0x04, 0x0a, 0x02, 0x7b, 0x7d]);
  });

  it('uses multi-byte varint lengths and round-trips UTF-8', () => {
    const json = JSON.stringify({ label: 'rtvi-ai', type: 'send-text', data: { content: 'ü'.repeat(150) } });
    const buf = encodeMessageFrame(json);
    const inner = Buffer.byteLength(json);
    expect(inner).toBeGreaterThan(127);
    // 0x22, outer length (2 bytes), 0x0a, inner length (2 bytes, low 7 bits first with the continuation bit)
    expect([buf[0], buf[3], buf[4], buf[5]]).toEqual([0x22, 0x0a, (inner & 0x7f) | 0x80, inner >> 7]);
    expect(decodeFrame(buf)).toEqual({ kind: 'message', data: json });
  });

  it('decodes text and audio frames with varint fields, and skips what it does not know', () => {
    // TextFrame{id: 7 (varint), text: "hi"}
    expect(decodeFrame(Buffer.from([0x0a, 0x06, 0x08, 0x07, 0x1a, 0x02, 0x68, 0x69]))).toEqual({ kind: 'text', text: 'hi' });
    expect(decodeFrame(encodeTextFrame('hello'))).toEqual({ kind: 'text', text: 'hello' });
    // AudioRawFrame{audio, sample_rate: 16000 (varint field 4)}
    expect(decodeFrame(Buffer.from([0x12, 0x09, 0x1a, 0x04, 0, 0, 0, 0, 0x20, 0x80, 0x7d]))).toEqual({ kind: 'audio' });
    expect(decodeFrame(encodeAudioFrame(new Uint8Array(320)))).toEqual({ kind: 'audio' });
    // An unknown top-level field (9, fixed32) before the message is skipped.
    expect(decodeFrame(Buffer.concat([Buffer.from([0x4d, 1, 2, 3, 4]), encodeMessageFrame('{"a":1}')]))).toEqual({ kind: 'message', data: '{"a":1}' });
  });

  it('never throws on garbage or truncated input', () => {
    expect(decodeFrame(Buffer.from([0x22, 0x10, 0x0a]))).toEqual({ kind: 'unknown' });
    expect(decodeFrame(Buffer.from('{"type":"bot-ready"}'))).toEqual({ kind: 'unknown' });
    expect(decodeFrame(Buffer.alloc(0))).toEqual({ kind: 'unknown' });
    expect(decodeFrame(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]))).toEqual({ kind: 'unknown' });
  });
});
