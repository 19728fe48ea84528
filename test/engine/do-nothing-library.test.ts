import { describe, expect, it } from 'vitest';
import { criterionResult, runCheck } from '../../src/engine/judge/checks.js';
import { scoreCriteria } from '../../src/engine/scoring.js';
import type { AgentTools, Check, Criterion, CriterionResult, Decision, TranscriptEntry } from '../../src/engine/types.js';
import { phrasedAsAbsence } from '../../src/modules/scenarios/acting-criteria.js';
import { loadBuiltinLibrary, type BuiltinTemplate } from '../../src/modules/scenarios/library.js';

// The whole built-in library against agents that do nothing useful, graded by a judge that grants every
// absence criterion ("Does not…", "Never…", "Stays…") and nothing else: no template may pass. Grading is done
// here with the grading functions themselves, so the test does not depend on how a conversation is run.

const at = '2026-11-25T12:00:00.000Z';

interface FakeAgent {
  name: string;
  reply(turn: number): Pick<TranscriptEntry, 'content' | 'tool_calls'>;
  tools: AgentTools[];
}

const UNKNOWN: AgentTools = { tool_names: null, tool_aliases: {} };
const NONE: AgentTools = { tool_names: [], tool_aliases: {} };

const AGENTS: FakeAgent[] = [
  { name: 'answers "OK." to everything', reply: () => ({ content: 'OK.' }), tools: [UNKNOWN, NONE] },
  { name: 'says nothing', reply: () => ({ content: '' }), tools: [UNKNOWN, NONE] },
  {
    name: 'calls its refund tool, named refund_payment, and says "OK."',
    reply: (turn) => ({
      content: 'OK.',
      tool_calls: turn === 0 ? [{ id: 'call_1', name: 'refund_payment', arguments: { amount: 40 }, result: { ok: true } }] : undefined,
    }),
    // what POST /agents records for a provider_4 agent whose config.tools declares refund_payment
    tools: [{ tool_names: ['refund_payment'], tool_aliases: {} }, UNKNOWN],
  },
];

function converse(t: BuiltinTemplate, agent: FakeAgent): TranscriptEntry[] {
  const lines = t.script.slice(0, t.max_turns ?? t.script.length);
  return lines.flatMap((line, i) => [
    { role: 'user' as const, content: line, timestamp: at },
    { role: 'assistant' as const, timestamp: at, latency_ms: 5, ...agent.reply(i) },
  ]);
}

/** A judge that grants every absence and decides the rest as told (it could not tell, or saw it undone). */
const fakeJudge = (otherwise: Decision) => (c: Criterion): CriterionResult =>
  phrasedAsAbsence(c.criterion)
    ? criterionResult(c, 'MET', 'nothing in the transcript does what it forbids', [], 'judge')
    : criterionResult(c, otherwise, 'the transcript does not show it', [], 'judge');

function grade(t: BuiltinTemplate, transcript: TranscriptEntry[], tools: AgentTools, otherwise: Decision) {
  const judge = fakeJudge(otherwise);
  const results = t.criteria.map((c) => (c.check ? runCheck(c as Criterion & { check: Check }, transcript, tools) : judge(c)));
  return { results, outcome: scoreCriteria(results, t.pass_threshold) };
}

describe('the built-in library against do-nothing agents', () => {
  const lib = loadBuiltinLibrary();

  for (const agent of AGENTS) {
    for (const otherwise of ['UNSURE', 'NOT_MET'] as const) {
      it(`no template passes an agent that ${agent.name} (judge: absences MET, the rest ${otherwise})`, () => {
        const passed: string[] = [];
        let granted = 0;
        for (const tools of agent.tools) {
          for (const t of lib) {
            const { results, outcome } = grade(t, converse(t, agent), tools, otherwise);
            granted += results.filter((r) => r.decision === 'MET').length;
            if (outcome.passed || outcome.status === 'passed') passed.push(`${t.slug} (tool_names ${JSON.stringify(tools.tool_names)})`);
          }
        }
        expect(passed).toEqual([]);
        // the judge really was generous: absence criteria and "never" checks were met throughout
        expect(granted).toBeGreaterThan(lib.length);
      });
    }
  }

  it('a refund under another name does not meet "Does not issue a refund"', () => {
    const t = lib.find((x) => x.criteria.some((c) => c.check?.type === 'tool_not_called' && c.check.name === 'issue_refund' && c.required))!;
    const refunder = AGENTS[2];
    const idx = t.criteria.findIndex((c) => c.check?.type === 'tool_not_called' && c.check.name === 'issue_refund');
    const transcript = converse(t, refunder);
    // the agent's tools are known and issue_refund is not among them: undecided, never MET
    expect(grade(t, transcript, refunder.tools[0], 'MET').results[idx]).toMatchObject({ decision: 'UNSURE', rationale: 'the agent has no known tool named issue_refund (set tool_aliases)' });
    // once the alias says what the agent calls it, the refund is caught
    const aliased: AgentTools = { tool_names: ['refund_payment'], tool_aliases: { issue_refund: 'refund_payment' } };
    expect(grade(t, transcript, aliased, 'MET').results[idx]).toMatchObject({ decision: 'NOT_MET', evidence_quotes: [{ turn: 1, text: 'refund_payment({"amount":40})' }] });
  });
});
