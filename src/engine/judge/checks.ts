import { pointsFor } from '../scoring.js';
import { UNKNOWN_TOOLS, type AgentTools, type Check, type Criterion, type CriterionResult, type Decision, type EvidenceQuote, type ToolCall, type TranscriptEntry } from '../types.js';
import { toolCallSignature } from './render.js';

// The deterministic checks a criterion may carry instead of the judge model. Every result quotes the entry that decided it, verbatim, so a
// reader can find it in the transcript; a check that passed because nothing matched has nothing to quote.

type Role = 'user' | 'assistant';
const SNIPPET = 200;

export function criterionResult(c: Criterion, decision: Decision, rationale: string, evidence: EvidenceQuote[], graded_by: 'check' | 'judge'): CriterionResult {
  return {
    criterion: c.criterion,
    decision,
    points_awarded: pointsFor(decision, c.max_points),
    max_points: c.max_points,
    rationale,
    evidence_quotes: evidence,
    required: c.required,
    graded_by,
  };
}

const snippet = (s: string) => (s.length > SNIPPET ? s.slice(0, SNIPPET) : s);
const quote = (turn: number, e: TranscriptEntry, text: string): EvidenceQuote => ({ turn, role: e.role, text: text || snippet(e.content) });

interface Hit {
  turn: number;
  entry: TranscriptEntry;
  text: string;
}

function findText(transcript: readonly TranscriptEntry[], role: Role, match: (content: string) => string | null): Hit | null {
  for (let i = 0; i < transcript.length; i++) {
    const e = transcript[i];
    if (e.role !== role) continue;
    const m = match(e.content);
    if (m !== null) return { turn: i, entry: e, text: m };
  }
  return null;
}

function containsMatcher(value: string): (content: string) => string | null {
  const needle = value.toLowerCase();
  return (content) => {
    const at = content.toLowerCase().indexOf(needle);
    // toLowerCase can change length for a few code points; fall back to the whole entry then.
    return at < 0 ? null : content.toLowerCase().length === content.length ? content.slice(at, at + value.length) : snippet(content);
  };
}

/** Partial match: every expected key must be present and match; strings compare case-insensitively. */
export function argumentsMatch(expected: unknown, actual: unknown): boolean {
  if (expected === null || typeof expected !== 'object') {
    if (typeof expected === 'string' && typeof actual === 'string') return expected.trim().toLowerCase() === actual.trim().toLowerCase();
    return Object.is(expected, actual);
  }
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && expected.length === actual.length && expected.every((e, i) => argumentsMatch(e, actual[i]));
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
  const a = actual as Record<string, unknown>;
  return Object.entries(expected as Record<string, unknown>).every(([k, v]) => Object.hasOwn(a, k) && argumentsMatch(v, a[k]));
}

function findToolCall(transcript: readonly TranscriptEntry[], name: string, args: Record<string, unknown> | undefined): (Hit & { call: ToolCall }) | null {
  for (let i = 0; i < transcript.length; i++) {
    const e = transcript[i];
    for (const call of e.tool_calls ?? []) {
      if (call.name === name && (args === undefined || argumentsMatch(args, call.arguments))) {
        return { turn: i, entry: e, text: toolCallSignature(call), call };
      }
    }
  }
  return null;
}

const wasCalled = (transcript: readonly TranscriptEntry[], name: string) => transcript.some((e) => (e.tool_calls ?? []).some((call) => call.name === name));

/** The agent's name for a template's tool: its alias when one is set (`null`: the agent has no such tool). */
export function resolveToolName(name: string, tools: AgentTools): string | null {
  return Object.hasOwn(tools.tool_aliases, name) ? tools.tool_aliases[name] : name;
}

/**
 * Whether a tool check on `name` can be decided for this agent: only when we know the agent has the tool, it
 * called it, it has no such tool, or it has no tools at all. "Never called" proves nothing about a tool the
 * agent may know under another name.
 */
export function toolCheckDecidable(name: string, tools: AgentTools, transcript: readonly TranscriptEntry[] = []): boolean {
  const resolved = resolveToolName(name, tools);
  if (resolved === null || tools.tool_names?.length === 0) return true;
  return (tools.tool_names?.includes(resolved) ?? false) || wasCalled(transcript, resolved);
}

export const unknownToolRationale = (name: string) => `the agent has no known tool named ${name} (set tool_aliases)`;

const countOf = (transcript: readonly TranscriptEntry[], role: Role) => transcript.reduce((n, e) => n + (e.role === role ? 1 : 0), 0);

export function runCheck(c: Criterion & { check: Check }, transcript: readonly TranscriptEntry[], tools: AgentTools = UNKNOWN_TOOLS): CriterionResult {
  const check = c.check;
  const done = (d: Decision, why: string, ev: EvidenceQuote[] = []) => criterionResult(c, d, why, ev, 'check');

  switch (check.type) {
    case 'contains':
    case 'not_contains':
    case 'regex':
    case 'not_regex': {
      const role: Role = check.role ?? 'assistant';
      const isRegex = check.type === 'regex' || check.type === 'not_regex';
      let matcher: (content: string) => string | null;
      if (isRegex) {
        let re: RegExp;
        try {
          re = new RegExp(check.value, 'i');
        } catch (err) {
          return done('UNSURE', `invalid regular expression /${check.value}/: ${(err as Error).message}`);
        }
        matcher = (content) => re.exec(content)?.[0] ?? null;
      } else {
        matcher = containsMatcher(check.value);
      }
      const shown = isRegex ? `/${check.value}/i` : JSON.stringify(check.value);
      const hit = findText(transcript, role, matcher);
      const wantHit = check.type === 'contains' || check.type === 'regex';
      if (hit) {
        const why = `${role} message at turn ${hit.turn} ${isRegex ? 'matches' : 'contains'} ${shown}`;
        return done(wantHit ? 'MET' : 'NOT_MET', why, [quote(hit.turn, hit.entry, hit.text)]);
      }
      const n = countOf(transcript, role);
      const why = n === 0 ? `no ${role} messages to check for ${shown}` : `none of ${n} ${role} messages ${isRegex ? 'matches' : 'contains'} ${shown}`;
      return done(wantHit ? 'NOT_MET' : 'MET', why);
    }

    case 'tool_called':
    case 'tool_not_called': {
      const wanted = check.type === 'tool_called';
      const resolved = resolveToolName(check.name, tools);
      if (resolved === null) {
        return done(wanted ? 'NOT_MET' : 'MET', `this agent has no tool ${check.name} (tool_aliases maps it to null)`);
      }
      const named = resolved === check.name ? check.name : `${resolved} (the agent's name for ${check.name})`;
      const hit = findToolCall(transcript, resolved, check.arguments);
      const what = check.arguments ? `${named} with arguments matching ${JSON.stringify(check.arguments)}` : named;
      if (hit) {
        const why = `tool ${what} called at turn ${hit.turn}: ${hit.text}`;
        return done(wanted ? 'MET' : 'NOT_MET', why, [quote(hit.turn, hit.entry, hit.text)]);
      }
      if (!toolCheckDecidable(check.name, tools, transcript)) return done('UNSURE', unknownToolRationale(resolved));
      if (tools.tool_names?.length === 0) return done(wanted ? 'NOT_MET' : 'MET', `the agent has no tools, so ${named} was never called`);
      return done(wanted ? 'NOT_MET' : 'MET', `tool ${what} was never called`);
    }

    case 'max_turns': {
      let turns = 0;
      for (let i = 0; i < transcript.length; i++) {
        if (transcript[i].role !== 'user') continue;
        if (++turns > check.value) {
          return done('NOT_MET', `conversation went past ${check.value} turns (turn ${turns} starts at entry ${i})`, [quote(i, transcript[i], snippet(transcript[i].content))]);
        }
      }
      return done('MET', `conversation took ${turns} turns (limit ${check.value})`);
    }

    case 'max_response_ms': {
      let slowest: Hit | null = null;
      let slowestMs = -1;
      for (let i = 0; i < transcript.length; i++) {
        const e = transcript[i];
        if (e.role !== 'assistant' || typeof e.latency_ms !== 'number') continue;
        if (e.latency_ms > slowestMs) {
          slowestMs = e.latency_ms;
          slowest = { turn: i, entry: e, text: snippet(e.content) };
        }
      }
      if (!slowest) return done('UNSURE', 'no timed agent replies to check');
      const ev = [quote(slowest.turn, slowest.entry, slowest.text)];
      return slowestMs > check.value
        ? done('NOT_MET', `slowest reply took ${slowestMs} ms at turn ${slowest.turn} (limit ${check.value} ms)`, ev)
        : done('MET', `slowest reply took ${slowestMs} ms at turn ${slowest.turn} (limit ${check.value} ms)`, ev);
    }

    case 'responded_every_turn': {
      let turns = 0;
      for (let i = 0; i < transcript.length; i++) {
        if (transcript[i].role !== 'user') continue;
        turns++;
        let answered = false;
        for (let j = i + 1; j < transcript.length && transcript[j].role !== 'user'; j++) {
          if (transcript[j].content.trim() !== '') answered = true;
        }
        if (!answered) {
          return done('NOT_MET', `the agent did not answer the caller's message at turn ${i}`, [quote(i, transcript[i], snippet(transcript[i].content))]);
        }
      }
      return turns === 0 ? done('UNSURE', 'the caller never spoke') : done('MET', `the agent answered all ${turns} caller messages`);
    }
  }
}
