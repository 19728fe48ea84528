import { describe, expect, it } from 'vitest';
import type { Criterion } from '../../engine/types.js';
import { DEMO_JUDGE_WARNING, runWarnings, type WarningScenario } from './run-warnings.js';

const judged = (criterion: string, over: Partial<Criterion> = {}): Criterion => ({ criterion, max_points: 1, required: false, check: null, ...over });
const checked = (over: Partial<Criterion> = {}): Criterion => ({ criterion: 'says hi', max_points: 1, required: false, check: { type: 'contains', value: 'hi' }, ...over });
const scenario = (over: Partial<WarningScenario> = {}): WarningScenario => ({ script: ['a', 'b', 'c'], criteria: [checked()], max_turns: null, pass_threshold: 0.75, ...over });
const base = { maxTurns: 4, hasJudge: true, demoJudge: false, tools: { tool_names: [], tool_aliases: {} } };

describe('run warnings', () => {
  it('none when nothing stands in the way', () => {
    expect(runWarnings({ ...base, scenarios: [scenario(), scenario({ criteria: [judged('Greets'), checked()] })] })).toEqual([]);
  });

  it('no judge model: counts the scenarios that cannot pass, else says the judge criteria stay UNSURE', () => {
    const required = scenario({ criteria: [judged('Greets', { required: true }), checked({ max_points: 9 })] });
    const heavy = scenario({ criteria: [judged('Greets', { max_points: 2 }), checked()] }); // 1 of 3 points left to checks < 0.75
    const light = scenario({ criteria: [judged('Greets'), checked({ max_points: 9 })] }); // 9 of 10 ≥ 0.75
    const noJudge = { ...base, hasJudge: false };
    expect(runWarnings({ ...noJudge, scenarios: [required, heavy, light, scenario()] })).toEqual(['2 scenarios cannot pass without a judge model']);
    expect(runWarnings({ ...noJudge, scenarios: [required] })).toEqual(['1 scenario cannot pass without a judge model']);
    expect(runWarnings({ ...noJudge, scenarios: [light] })).toEqual(['1 scenario has judge criteria that stay UNSURE without a judge model']);
    expect(runWarnings({ ...noJudge, scenarios: [scenario()] })).toEqual([]);
  });

  it('scripts longer than the turn cap, the scenario\'s own max_turns included; a script that fits exactly is not cut', () => {
    const s = [scenario({ script: Array(7).fill('x') }), scenario({ script: Array(6).fill('x') }), scenario({ script: Array(4).fill('x') })];
    expect(runWarnings({ ...base, scenarios: s })).toEqual(['2 scenarios will be cut off: their scripts have up to 7 lines; max_turns is 4']);
    expect(runWarnings({ ...base, maxTurns: 10, scenarios: [scenario({ script: Array(6).fill('x'), max_turns: 5 })] }))
      .toEqual(['1 scenario will be cut off: their scripts have up to 6 lines; max_turns is 10']);
    expect(runWarnings({ ...base, maxTurns: 7, scenarios: s })).toEqual([]);
  });

  it('tool names the agent does not resolve, by the agent\'s name where aliased', () => {
    const tools = (name: string, type: 'tool_called' | 'tool_not_called' = 'tool_not_called') => scenario({ criteria: [checked({ check: { type, name } })] });
    const s = [tools('issue_refund'), tools('lookup_order', 'tool_called'), tools('issue_refund', 'tool_called')];
    expect(runWarnings({ ...base, tools: { tool_names: null, tool_aliases: {} }, scenarios: s })).toEqual([
      'the agent has no known tool named issue_refund, lookup_order: the tool checks of 3 scenarios stay UNSURE unless the agent calls them (set tool_names or tool_aliases)',
    ]);
    expect(runWarnings({ ...base, tools: { tool_names: ['lookup_order'], tool_aliases: { issue_refund: 'refund_payment' } }, scenarios: s })).toEqual([
      'the agent has no known tool named refund_payment (for issue_refund): the tool checks of 2 scenarios stay UNSURE unless the agent calls it (set tool_names or tool_aliases)',
    ]);
    expect(runWarnings({ ...base, tools: { tool_names: ['lookup_order'], tool_aliases: { issue_refund: null } }, scenarios: s })).toEqual([]);
    expect(runWarnings({ ...base, tools: { tool_names: [], tool_aliases: {} }, scenarios: s })).toEqual([]);
  });

  it('the demo judge says what its grades are', () => {
    expect(runWarnings({ ...base, demoJudge: true, scenarios: [scenario()] })).toEqual([DEMO_JUDGE_WARNING]);
    expect(DEMO_JUDGE_WARNING).toMatch(/keyword rules written for the sample agent/);
  });
});
