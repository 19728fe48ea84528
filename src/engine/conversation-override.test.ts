import { describe, expect, it } from 'vitest';
import { systemClock } from '../lib/clock.js';
import type { AgentReply, ProviderSession } from './provider.js';
import { StuckClock } from '../../test/fakes/fake-clock.js';
import { runConversation } from './conversation.js';
import { createScriptedTester } from './tester/scripted.js';
import type { TranscriptEntry } from './types.js';

// The two optional ProviderSession hooks: transcriptOverride (the provider's own record replaces the live
// transcript) and closeTimeoutMs (a longer hang-up for a post-call read, after completed conversations only).

const at = '2026-01-01T00:00:00.000Z';
const reply = (content: string, ended = false): AgentReply => ({ content, tool_calls: [], ended });

function session(over: Partial<ProviderSession> = {}): ProviderSession {
  return { greeting: async () => null, send: async (t) => reply(`echo ${t}`), close: async () => {}, costUsd: () => null, ...over };
}

describe('runConversation with provider hooks', () => {
  it('a session that runs the whole call in greeting(): the tester is never asked, the record replaces the transcript', async () => {
    let asked = 0;
    const tester = { model: null, next: async () => { asked++; return { kind: 'message' as const, content: 'x' }; } };
    const record: TranscriptEntry[] = [
      { role: 'assistant', content: 'Hello', timestamp: at, latency_ms: null },
      { role: 'user', content: 'Hi', timestamp: at },
      { role: 'assistant', content: 'Booked', timestamp: at, latency_ms: 640, tool_calls: [{ id: 't1', name: 'book', arguments: {}, result: 'ok' }] },
    ];
    let live: readonly TranscriptEntry[] = [];
    const s = session({ greeting: async () => reply('whole call', true), transcriptOverride: (l) => { live = l; return record; } });
    const r = await runConversation({ session: s, tester, maxTurns: 5, timeoutMs: 10_000, clock: systemClock, signal: new AbortController().signal });
    expect(asked).toBe(0);
    expect(live.map((e) => e.content)).toEqual(['whole call']);
    expect(r.transcript).toEqual(record);
    expect(r).toMatchObject({ end_reason: 'agent_ended', turn_count: 1, turn_durations_ms: [640] });
  });

  it('null from transcriptOverride, or a throw, keeps the live transcript', async () => {
    for (const transcriptOverride of [() => null, () => { throw new Error('unreadable'); }]) {
      const r = await runConversation({ session: session({ transcriptOverride }), tester: createScriptedTester(['a']), maxTurns: 1, timeoutMs: 10_000, clock: systemClock, signal: new AbortController().signal });
      expect(r.transcript.map((e) => e.content)).toEqual(['a', 'echo a']);
    }
  });

  it('closeTimeoutMs lengthens the hang-up bound after a completed conversation only', async () => {
    for (const [canceled, expected] of [[false, 60_000], [true, 5000]] as const) {
      const clock = new StuckClock();
      const ac = new AbortController();
      let release!: () => void;
      const s = session({
        closeTimeoutMs: 60_000,
        send: async (t) => { if (canceled) ac.abort(new Error('cancel')); return reply(t); },
        close: () => new Promise<void>((r) => { release = r; }),
      });
      const p = runConversation({ session: s, tester: createScriptedTester(['a']), maxTurns: 1, timeoutMs: 10_000, clock, signal: ac.signal });
      await new Promise((r) => setTimeout(r, 20));
      expect(clock.sleeps).toContain(expected);
      release();
      await p;
    }
  });
});
