import { resolveToolName, toolCheckDecidable } from '../../engine/judge/checks.js';
import type { AgentTools, Criterion } from '../../engine/types.js';

// What could make a run's verdicts mean less than they seem, said when the run is created, before anyone
// waits for it: judge criteria nobody will judge, scripts the turn cap cuts short, tool checks on names the
// agent does not resolve, and the demo's rule-based judge.

export interface WarningScenario {
  script: readonly string[];
  criteria: readonly Criterion[];
  max_turns: number | null;
  pass_threshold: number;
}

export interface WarningInputs {
  scenarios: readonly WarningScenario[];
  /** The run's max_turns; a scenario's own max_turns caps it further. */
  maxTurns: number;
  /** Whether a judge model will grade the judge criteria. */
  hasJudge: boolean;
  demoJudge: boolean;
  tools: AgentTools;
}

export const DEMO_JUDGE_WARNING =
  "the judge is Rehearsal's rule-based demo judge: its grades are keyword rules written for the sample agent, not judgments (set REHEARSAL_LLM_* for a real judge)";

const EPSILON = 1e-9;
const plural = (k: number, one: string, many: string) => (k === 1 ? one : many);

/**
 * Without a judge every judge criterion stays UNSURE, and an undecided criterion counts against a pass:
 * a scenario cannot pass when one is required, or when the points left to its checks fall short.
 */
function cannotPassWithoutJudge(s: WarningScenario): boolean {
  const judged = s.criteria.filter((c) => c.check === null);
  if (judged.length === 0) return false;
  if (judged.some((c) => c.required)) return true;
  const total = s.criteria.reduce((n, c) => n + c.max_points, 0);
  const checked = total - judged.reduce((n, c) => n + c.max_points, 0);
  return total === 0 || checked / total < s.pass_threshold - EPSILON;
}

export function runWarnings(i: WarningInputs): string[] {
  const out: string[] = [];

  if (!i.hasJudge) {
    const judged = i.scenarios.filter((s) => s.criteria.some((c) => c.check === null));
    const blocked = judged.filter(cannotPassWithoutJudge).length;
    if (blocked > 0) out.push(`${blocked} ${plural(blocked, 'scenario', 'scenarios')} cannot pass without a judge model`);
    else if (judged.length > 0) out.push(`${judged.length} ${plural(judged.length, 'scenario has', 'scenarios have')} judge criteria that stay UNSURE without a judge model`);
  }

  const cut = i.scenarios
    .map((s) => ({ lines: s.script.length, cap: s.max_turns === null ? i.maxTurns : Math.min(i.maxTurns, s.max_turns) }))
    .filter((s) => s.lines > s.cap);
  if (cut.length > 0) {
    const longest = Math.max(...cut.map((s) => s.lines));
    out.push(`${cut.length} ${plural(cut.length, 'scenario', 'scenarios')} will be cut off: their scripts have up to ${longest} lines; max_turns is ${i.maxTurns}`);
  }

  const unresolved = new Map<string, number>();
  for (const s of i.scenarios) {
    const names = new Set(s.criteria.flatMap((c) => (c.check?.type === 'tool_called' || c.check?.type === 'tool_not_called' ? [c.check.name] : [])));
    for (const name of names) if (!toolCheckDecidable(name, i.tools)) unresolved.set(name, (unresolved.get(name) ?? 0) + 1);
  }
  if (unresolved.size > 0) {
    const names = [...unresolved.keys()].sort().map((name) => {
      const own = resolveToolName(name, i.tools);
      return own === name ? name : `${own} (for ${name})`;
    });
    const affected = i.scenarios.filter((s) => s.criteria.some((c) => c.check && 'name' in c.check && unresolved.has(c.check.name))).length;
    out.push(
      `the agent has no known tool named ${names.join(', ')}: the tool checks of ${affected} ${plural(affected, 'scenario', 'scenarios')} stay UNSURE unless the agent calls ${plural(names.length, 'it', 'them')} (set tool_names or tool_aliases)`,
    );
  }

  if (i.demoJudge) out.push(DEMO_JUDGE_WARNING);
  return out;
}
