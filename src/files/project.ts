import fs from 'node:fs';
import path from 'node:path';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { validateWith } from '../http/validation.js';
import { loadBuiltinLibrary } from '../modules/scenarios/library.js';
import { SLUG_PATTERN, type CreateScenarioInput } from '../modules/scenarios/scenarios.schemas.js';
import { FILE_KINDS, type FileKind } from './file-schemas.js';
import { checkInlineAgent, type InlineAgent } from './inline-agent.js';
import { lineOf, schemaProblems, type Problem } from './yaml-problems.js';

// A project folder (`./rehearsal` by default): rehearsal.yaml, scenarios/*.yaml, suites/*.yaml. Loading never
// stops at the first problem: every file is read and every problem reported with its file, line and field.

export interface ProjectDefaults {
  agent?: string | InlineAgent; suite?: string; test_mode?: 'demo' | 'full'; max_scenarios?: number; max_turns?: number;
  repeats?: number; baseline?: string; min_pass_rate?: number; min_coverage?: number; fail_on_regression?: boolean;
}
export interface ScenarioFile { slug: string; file: string; body: Omit<CreateScenarioInput, 'slug' | 'source'> }
export interface SuiteFile { file: string; name: string; description: string | null; scenarios: string[] }
export interface Project {
  dir: string;
  defaults: ProjectDefaults;
  /** The inline agent with its `${ENV}` references substituted (for sync), or null. */
  agent: InlineAgent | null;
  scenarios: ScenarioFile[];
  suites: SuiteFile[];
  problems: Problem[];
}

const validators = Object.fromEntries(Object.entries(FILE_KINDS).map(([k, s]) => [k, validateWith(s)])) as Record<FileKind, ReturnType<typeof validateWith>>;
const slugRe = new RegExp(SLUG_PATTERN);
const yamlFiles = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort() : []);

interface Parsed { doc: Document; lc: LineCounter; value: unknown; file: string }

function parseFile(file: string, rel: string, problems: Problem[]): Parsed | null {
  const lc = new LineCounter();
  const doc = parseDocument(fs.readFileSync(file, 'utf8'), { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    problems.push({ file: rel, line: e.linePos?.[0]?.line ?? lc.linePos(e.pos[0]).line, field: '(yaml)', message: e.message.split('\n')[0] });
    return null;
  }
  return { doc, lc, value: doc.toJS(), file: rel };
}

function check(kind: FileKind, p: Parsed, problems: Problem[]): boolean {
  const validate = validators[kind];
  if (p.value === null || typeof p.value !== 'object' || Array.isArray(p.value)) {
    problems.push({ file: p.file, line: 1, field: '(file)', message: 'must be a YAML mapping (key: value lines)' });
    return false;
  }
  if (validate(p.value)) return true;
  problems.push(...schemaProblems(p.file, p.doc, p.lc, validate.errors ?? []));
  return false;
}

/** Regex checks are compiled at grading time; one that cannot compile is a problem here, as in the API. */
function regexProblems(p: Parsed, body: any, problems: Problem[]) {
  (body.criteria ?? []).forEach((c: any, i: number) => {
    const chk = c?.check;
    if (chk && (chk.type === 'regex' || chk.type === 'not_regex') && typeof chk.value === 'string') {
      try { new RegExp(chk.value, 'i'); } catch (err) {
        problems.push({ file: p.file, line: lineOf(p.doc, p.lc, ['criteria', i, 'check', 'value']), field: `criteria[${i}].check.value`, message: `is not a valid regular expression: ${(err as Error).message}` });
      }
    }
  });
}

export function loadProject(dir: string, env: NodeJS.ProcessEnv): Project {
  const root = path.resolve(dir);
  const rel = (f: string) => path.relative(process.cwd(), f) || f;
  const problems: Problem[] = [];
  const project: Project = { dir: root, defaults: {}, agent: null, scenarios: [], suites: [], problems };
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) {
    problems.push({ file: rel(root), line: 1, field: '(dir)', message: 'no such directory (pass --dir, default ./rehearsal)' });
    return project;
  }

  for (const name of ['rehearsal.yaml', 'rehearsal.yml']) {
    const file = path.join(root, name);
    if (!fs.existsSync(file)) continue;
    const p = parseFile(file, rel(file), problems);
    if (p && check('rehearsal', p, problems)) {
      project.defaults = p.value as ProjectDefaults;
      if (typeof project.defaults.agent === 'object') project.agent = checkInlineAgent(p, project.defaults.agent, env, problems);
    }
    break;
  }

  // a suite may name a scenario file that has problems of its own: those are reported once, at that file
  const own = new Set(yamlFiles(path.join(root, 'scenarios')).map((f) => f.replace(/\.ya?ml$/, '')));
  for (const f of yamlFiles(path.join(root, 'scenarios'))) {
    const file = path.join(root, 'scenarios', f);
    const slug = f.replace(/\.ya?ml$/, '');
    if (!slugRe.test(slug)) problems.push({ file: rel(file), line: 1, field: 'slug', message: `the file name "${slug}" is not a valid slug (lower-case letters, digits and "-", starting with a letter or digit, at most 64 characters)` });
    const p = parseFile(file, rel(file), problems);
    if (!p || !check('scenario', p, problems)) continue;
    regexProblems(p, p.value, problems);
    project.scenarios.push({ slug, file: rel(file), body: p.value as ScenarioFile['body'] });
  }

  const builtin = new Set(loadBuiltinLibrary().map((t) => t.slug));
  for (const f of yamlFiles(path.join(root, 'suites'))) {
    const file = path.join(root, 'suites', f);
    const p = parseFile(file, rel(file), problems);
    if (!p || !check('suite', p, problems)) continue;
    const v = p.value as { name: string; description?: string | null; scenarios: string[] };
    v.scenarios.forEach((slug, i) => {
      if (!own.has(slug) && !builtin.has(slug)) {
        problems.push({ file: p.file, line: lineOf(p.doc, p.lc, ['scenarios', i]), field: `scenarios[${i}]`, message: `"${slug}" names no scenario file of the folder and no built-in template` });
      }
    });
    project.suites.push({ file: p.file, name: v.name, description: v.description ?? null, scenarios: v.scenarios });
  }
  const names = new Map<string, string>();
  for (const s of project.suites) {
    const k = s.name.trim().toLowerCase();
    if (names.has(k)) problems.push({ file: s.file, line: 1, field: 'name', message: `"${s.name}" is also the name of ${names.get(k)}` });
    else names.set(k, s.file);
  }
  problems.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  return project;
}
