import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProject } from './project.js';
import { formatProblem } from './yaml-problems.js';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

function writeProject(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-files-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const GOOD_SCENARIO = `name: Asks for hours
goal: Learn the opening hours
script:
  - When are you open?
criteria:
  - criterion: States the opening hours
    max_points: 2
  - criterion: Mentions a day
    check: { type: regex, value: "monday|tuesday" }
`;

const lines = (dir: string, env: NodeJS.ProcessEnv = {}) => loadProject(dir, env).problems.map((p) => formatProblem({ ...p, file: path.relative(dir, path.resolve(p.file)) }));

describe('project files', () => {
  it('loads a valid folder: scenarios by slug, suites naming files and built-ins, defaults', () => {
    const dir = writeProject({
      'rehearsal.yaml': 'agent: Front desk\nsuite: Smoke\nmax_turns: 6\nmin_pass_rate: 80\n',
      'scenarios/hours.yaml': GOOD_SCENARIO,
      'suites/smoke.yaml': 'name: Smoke\nscenarios:\n  - hours\n  - book-new-appointment\n',
    });
    const p = loadProject(dir, {});
    expect(p.problems).toEqual([]);
    expect(p.defaults).toEqual({ agent: 'Front desk', suite: 'Smoke', max_turns: 6, min_pass_rate: 80 });
    expect(p.scenarios.map((s) => s.slug)).toEqual(['hours']);
    expect(p.suites).toEqual([expect.objectContaining({ name: 'Smoke', scenarios: ['hours', 'book-new-appointment'] })]);
  });

  it('reports every broken file with its line and field', () => {
    const dir = writeProject({
      'rehearsal.yaml': 'agent: Front desk\nmax_turns: 99\ncolour: blue\n',
      'scenarios/missing-criteria.yaml': 'name: No criteria\ngoal: x\n',
      'scenarios/bad-points.yaml': 'name: Bad points\ncriteria:\n  - criterion: ok\n  - criterion: bad\n    max_points: lots\n',
      'scenarios/Bad_Name.yaml': GOOD_SCENARIO.replace('Asks for hours', 'Other'),
      'scenarios/broken.yaml': 'name: [unclosed\ncriteria: x\n',
      'scenarios/bad-regex.yaml': 'name: Regex\ncriteria:\n  - criterion: c\n    check: { type: regex, value: "(" }\n',
      'suites/smoke.yaml': 'name: Smoke\nscenarios:\n  - bad-points\n  - nowhere\n',
      'suites/empty.yaml': 'description: no name\nscenarios: []\n',
    });
    expect(lines(dir)).toEqual([
      'rehearsal.yaml:2: max_turns: must be <= 50',
      'rehearsal.yaml:3: colour: is not a known field',
      'scenarios/Bad_Name.yaml:1: slug: the file name "Bad_Name" is not a valid slug (lower-case letters, digits and "-", starting with a letter or digit, at most 64 characters)',
      'scenarios/bad-points.yaml:5: criteria[1].max_points: must be number',
      'scenarios/bad-regex.yaml:4: criteria[0].check.value: is not a valid regular expression: Invalid regular expression: /(/i: Unterminated group',
      expect.stringMatching(/^scenarios\/broken\.yaml:[12]: \(yaml\): /),
      'scenarios/missing-criteria.yaml:1: criteria: is required',
      'suites/empty.yaml:1: name: is required',
      'suites/empty.yaml:2: scenarios: must NOT have fewer than 1 items',
      'suites/smoke.yaml:4: scenarios[1]: "nowhere" names no scenario file of the folder and no built-in template',
    ]);
  });

  it('names the line the YAML parser names, and nested keys by their path', () => {
    const dir = writeProject({
      'scenarios/broken.yaml': 'name: [unclosed\ncriteria: x\n',
      'scenarios/dup.yaml': 'name: Dup\nname: Again\ncriteria:\n  - criterion: c\n',
      'scenarios/nested.yaml': 'name: Nested\ncriteria:\n  - criterion: c\n  - criterion: d\n    colour: red\ntags: notalist\n',
      'scenarios/tabs.yaml': 'name: Tabs\ncriteria:\n\t- criterion: c\n',
      'suites/typo.yaml': 'name: Typo\nscenarios:\n  - nested\n  - nestd\n',
    });
    expect(lines(dir)).toEqual([
      'scenarios/broken.yaml:2: (yaml): Flow sequence in block collection must be sufficiently indented and end with a ]',
      'scenarios/dup.yaml:2: (yaml): Map keys must be unique',
      'scenarios/nested.yaml:5: criteria[1].colour: is not a known field',
      'scenarios/nested.yaml:6: tags: must be array',
      'scenarios/tabs.yaml:3: (yaml): Tabs are not allowed as indentation',
      'suites/typo.yaml:4: scenarios[1]: "nestd" names no scenario file of the folder and no built-in template',
    ]);
  });

  it('inline agents: secrets only as ${ENV} references, set in the environment, config checked substituted', () => {
    const agent = (apiKey: string, model = 'm') => `agent:\n  provider: provider_4\n  name: Bot\n  config:\n    base_url: \${AGENT_URL}\n    model: ${model}\n    api_key: ${apiKey}\n`;
    expect(lines(writeProject({ 'rehearsal.yaml': agent('sk-literal') }), { AGENT_URL: 'http://127.0.0.1:9/v1' })).toEqual([
      'rehearsal.yaml:7: agent.config.api_key: is a secret: write it as a ${ENV_VAR} reference, never a literal value',
    ]);
    expect(lines(writeProject({ 'rehearsal.yaml': agent('${AGENT_KEY}') }), {})).toEqual([
      'rehearsal.yaml:5: agent.config.base_url: the environment variable AGENT_URL is not set',
      'rehearsal.yaml:7: agent.config.api_key: the environment variable AGENT_KEY is not set',
    ]);
    const ok = loadProject(writeProject({ 'rehearsal.yaml': agent('${AGENT_KEY}') }), { AGENT_URL: 'http://127.0.0.1:9/v1', AGENT_KEY: 'k1' });
    expect(ok.problems).toEqual([]);
    expect(ok.agent).toEqual({ provider: 'provider_4', name: 'Bot', config: { base_url: 'http://127.0.0.1:9/v1', model: 'm', api_key: 'k1' } });
  });
});
