import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { Value } from '@sinclair/typebox/value';
import {
  BuiltinTemplateSchema,
  SCENARIO_CATEGORIES,
  defaultLibraryDir,
  loadBuiltinLibrary,
  type BuiltinTemplate,
} from './library.js';
import { hasRequiredAction, requiresAction } from './acting-criteria.js';

const tempDirs: string[] = [];
afterAll(() => {
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});

function fixture(slug: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const script = ['Hello, I need some help.', 'Second line.', 'Third line.', 'Fourth line.', 'Fifth line.', 'Thanks, bye.'];
  return {
    id: uuidv7(),
    slug,
    name: `Fixture ${slug}`,
    description: 'A fixture template.',
    category: 'booking-and-changes',
    tags: ['fixture'],
    persona: 'A test caller.',
    goal: 'Test the loader.',
    instructions: 'Say the lines.',
    opening_message: script[0],
    script,
    criteria: [
      { criterion: 'Greets the caller', check: null },
      { criterion: 'Offers a next step', max_points: 2, required: true, check: null },
      { criterion: 'Replies every turn', check: { type: 'responded_every_turn' } },
    ],
    pass_threshold: 0.75,
    max_turns: 8,
    ...over,
  };
}

/** Writes the given files (name -> object, or raw string) into a fresh temp dir and returns its path. */
function libDir(files: Record<string, Record<string, unknown> | string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-library-'));
  tempDirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    fs.writeFileSync(path.join(dir, name), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return dir;
}

function expectLoadError(dir: string, file: string, problem: RegExp): void {
  let error: unknown;
  try {
    loadBuiltinLibrary(dir);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(Error);
  const message = (error as Error).message;
  expect(message).toContain(file);
  expect(message).toMatch(problem);
}

describe('the built-in library', () => {
  const lib = loadBuiltinLibrary();
  const count = (ts: BuiltinTemplate[], category: string) => ts.filter((t) => t.category === category).length;

  it('loads at least 40 templates from library/scenarios', () => {
    expect(lib.length).toBeGreaterThanOrEqual(40);
    expect(defaultLibraryDir().replace(/\\/g, '/')).toMatch(/\/library\/scenarios\/?$/);
  });

  it('is numbered 01..N without gaps, in file-name order', () => {
    const files = fs.readdirSync(defaultLibraryDir()).filter((f) => f.endsWith('.json')).sort();
    expect(files).toHaveLength(lib.length);
    files.forEach((f, i) => {
      expect(f).toBe(`${String(i + 1).padStart(2, '0')}-${lib[i].slug}.json`);
    });
  });

  it('covers every category', () => {
    for (const c of SCENARIO_CATEGORIES) expect(count(lib, c), c).toBeGreaterThanOrEqual(3);
  });

  it('has a balanced demo set in the first 20', () => {
    const demo = lib.slice(0, 20);
    for (const c of SCENARIO_CATEGORIES) expect(count(demo, c), c).toBeGreaterThanOrEqual(1);
    expect(count(demo, 'safety')).toBeGreaterThanOrEqual(2);
    expect(count(demo, 'hard-callers')).toBeGreaterThanOrEqual(2);
    expect(count(demo, 'booking-and-changes')).toBeGreaterThanOrEqual(2);
  });

  it('covers the safety and hard-caller situations of the spec', () => {
    const tags = new Set(lib.flatMap((t) => t.tags));
    for (const tag of [
      'prompt-injection', 'prompt-extraction', 'third-party-data', 'ai-disclosure',
      'angry', 'confused', 'rambling', 'changes-mind', 'multiple-intents', 'language-switch',
      'silence', 'one-word-answers', 'spelling', 'numbers',
    ]) expect(tags.has(tag), tag).toBe(true);
  });

  it('uses every kind of deterministic check somewhere', () => {
    const kinds = new Set<string>(lib.flatMap((t) => t.criteria.flatMap((c) => (c.check ? [c.check.type] : []))));
    for (const k of ['contains', 'not_contains', 'regex', 'not_regex', 'tool_called', 'tool_not_called', 'max_turns', 'max_response_ms', 'responded_every_turn']) {
      expect(kinds.has(k), k).toBe(true);
    }
  });

  it('holds every template to the library rules', () => {
    for (const t of lib) {
      expect(t.script.length, t.slug).toBeGreaterThanOrEqual(6);
      expect(t.script[0], t.slug).toBe(t.opening_message);
      expect(t.criteria.filter((c) => c.check === null).length, t.slug).toBeGreaterThanOrEqual(2);
      expect(t.criteria.filter((c) => c.check !== null).length, t.slug).toBeGreaterThanOrEqual(1);
      expect(t.name.length, t.slug).toBeLessThanOrEqual(80);
      expect(t.id, t.slug).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      for (const c of t.criteria) {
        expect(typeof c.max_points).toBe('number');
        expect(typeof c.required).toBe('boolean');
        const check = c.check;
        if (check && (check.type === 'regex' || check.type === 'not_regex')) {
          expect(() => new RegExp(check.value, 'i')).not.toThrow();
        }
        if (check && 'role' in check) expect(check.role).toBe('assistant');
      }
    }
    expect(new Set(lib.map((t) => t.id)).size).toBe(lib.length);
    expect(new Set(lib.map((t) => t.name.toLowerCase())).size).toBe(lib.length);
  });

  it('sets max_turns checks that a scripted run can pass and an LLM tester can still fail', () => {
    for (const t of lib) {
      for (const c of t.criteria) {
        if (c.check?.type !== 'max_turns') continue;
        expect(c.check.value, t.slug).toBeGreaterThanOrEqual(t.script.length);
        if (t.max_turns !== null) expect(c.check.value, t.slug).toBeLessThan(t.max_turns);
      }
    }
  });

  it('marks the critical safety criteria as required', () => {
    for (const t of lib.filter((x) => x.category === 'safety')) {
      expect(t.criteria.some((c) => c.required), t.slug).toBe(true);
    }
  });

  it('holds a do-nothing agent to something: every template has a required criterion only an acting agent can meet', () => {
    const without = lib.filter((t) => !hasRequiredAction(t.criteria)).map((t) => t.slug);
    expect(without).toEqual([]);
  });

  it('tells acting criteria from absences', () => {
    const judged = (criterion: string) => ({ criterion, check: null });
    for (const text of ['Does not reveal the code', "Doesn't argue", 'Never claims to be human', 'Stays calm', 'Keeps replies short', 'Avoids the phrase', 'Uses no disparaging words', 'States no voting preference', 'Respects the refusal']) {
      expect(requiresAction(judged(text)), text).toBe(false);
    }
    for (const text of ['Offers a transfer', 'Explains the refund status', 'Says it is an AI', 'Confirms the final day and time back']) {
      expect(requiresAction(judged(text)), text).toBe(true);
    }
    expect(requiresAction({ criterion: 'x', check: { type: 'contains', value: 'a' } })).toBe(true);
    expect(requiresAction({ criterion: 'x', check: { type: 'regex', value: 'a' } })).toBe(true);
    expect(requiresAction({ criterion: 'x', check: { type: 'tool_called', name: 'a' } })).toBe(true);
    for (const type of ['not_contains', 'not_regex'] as const) expect(requiresAction({ criterion: 'x', check: { type, value: 'a' } })).toBe(false);
    expect(requiresAction({ criterion: 'x', check: { type: 'tool_not_called', name: 'a' } })).toBe(false);
    expect(requiresAction({ criterion: 'x', check: { type: 'responded_every_turn' } })).toBe(false);
    expect(requiresAction({ criterion: 'x', check: { type: 'max_turns', value: 3 } })).toBe(false);
    expect(requiresAction({ criterion: 'x', check: { type: 'max_response_ms', value: 3 } })).toBe(false);
  });

  it('is cached and immutable', () => {
    const again = loadBuiltinLibrary();
    expect(again).not.toBe(lib);
    again.forEach((t, i) => expect(t).toBe(lib[i]));
    expect(Object.isFrozen(lib[0])).toBe(true);
    expect(Object.isFrozen(lib[0].criteria[0])).toBe(true);
    expect(() => {
      (lib[0].script as string[]).push('x');
    }).toThrow();
  });
});

describe('loadBuiltinLibrary validation', () => {
  it('loads a valid directory sorted by file name and normalizes criteria', () => {
    const dir = libDir({ '02-second.json': fixture('second'), '01-first.json': fixture('first'), 'README.md': 'ignored' });
    const lib = loadBuiltinLibrary(dir);
    expect(lib.map((t) => t.slug)).toEqual(['first', 'second']);
    expect(lib[0].criteria[0]).toEqual({ criterion: 'Greets the caller', max_points: 1, required: false, check: null });
    expect(lib[0].criteria[1]).toMatchObject({ max_points: 2, required: true });
    expect(Value.Check(BuiltinTemplateSchema, { ...lib[0], criteria: lib[0].criteria })).toBe(true);
  });

  it('rejects unknown fields', () => {
    expectLoadError(libDir({ '01-extra.json': fixture('extra', { colour: 'blue' }) }), '01-extra.json', /schema.*colour|colour/);
  });

  it('rejects a missing field', () => {
    const t = fixture('nogoal');
    delete t.goal;
    expectLoadError(libDir({ '01-nogoal.json': t }), '01-nogoal.json', /goal/);
  });

  it('rejects an unknown category', () => {
    expectLoadError(libDir({ '01-cat.json': fixture('cat', { category: 'misc' }) }), '01-cat.json', /category "misc" is not one of/);
  });

  it('rejects an id that is not a UUID v7', () => {
    const v4 = '0b7e1f0a-3c2d-4e5f-8a9b-0c1d2e3f4a5b';
    expectLoadError(libDir({ '01-v4.json': fixture('v4', { id: v4 }) }), '01-v4.json', /UUID version 7/);
  });

  it('rejects duplicate ids', () => {
    const a = fixture('a');
    const dir = libDir({ '01-a.json': a, '02-b.json': fixture('b', { id: a.id }) });
    expectLoadError(dir, '02-b.json', /id .* already used by 01-a\.json/);
  });

  it('rejects duplicate names, ignoring case and spaces', () => {
    const dir = libDir({ '01-a.json': fixture('a', { name: 'Same name' }), '02-b.json': fixture('b', { name: 'SAME NAME' }) });
    expectLoadError(dir, '02-b.json', /name .* already used by 01-a\.json/);
  });

  it('rejects duplicate slugs', () => {
    const dir = libDir({ '01-dup.json': fixture('dup'), '02-dup.json': fixture('dup', { name: 'Other' }) });
    expectLoadError(dir, '02-dup.json', /slug "dup" is already used by 01-dup\.json/);
  });

  it("rejects a slug that differs from the file name's slug", () => {
    expectLoadError(libDir({ '01-right.json': fixture('wrong') }), '01-right.json', /does not match the file name/);
  });

  it('rejects a file name without the NN- prefix', () => {
    expectLoadError(libDir({ 'plain.json': fixture('plain') }), 'plain.json', /NN-slug\.json/);
  });

  it('rejects a script with fewer than 6 lines', () => {
    const script = ['Hi.', 'Two.', 'Three.', 'Four.', 'Five.'];
    expectLoadError(libDir({ '01-short.json': fixture('short', { script, opening_message: 'Hi.' }) }), '01-short.json', /script has 5 lines/);
  });

  it('rejects an opening_message that is not the first script line', () => {
    expectLoadError(libDir({ '01-open.json': fixture('open', { opening_message: 'Something else' }) }), '01-open.json', /opening_message/);
  });

  it('rejects a template without a deterministic check', () => {
    const criteria = [
      { criterion: 'One', check: null },
      { criterion: 'Two', check: null },
      { criterion: 'Three' },
    ];
    expectLoadError(libDir({ '01-nocheck.json': fixture('nocheck', { criteria }) }), '01-nocheck.json', /deterministic check/);
  });

  it('rejects a template with fewer than 2 judge criteria', () => {
    const criteria = [
      { criterion: 'One', check: null },
      { criterion: 'Two', check: { type: 'responded_every_turn' } },
      { criterion: 'Three', check: { type: 'max_response_ms', value: 5000 } },
    ];
    expectLoadError(libDir({ '01-onejudge.json': fixture('onejudge', { criteria }) }), '01-onejudge.json', /1 judge-graded/);
  });

  it('rejects a regex that does not compile', () => {
    const criteria = [
      { criterion: 'One', check: null },
      { criterion: 'Two', check: null },
      { criterion: 'Bad pattern', check: { type: 'not_regex', value: '(unclosed', role: 'assistant' } },
    ];
    expectLoadError(libDir({ '01-regex.json': fixture('regex', { criteria }) }), '01-regex.json', /invalid regex/);
  });

  it('rejects an invalid check shape', () => {
    const criteria = [
      { criterion: 'One', check: null },
      { criterion: 'Two', check: null },
      { criterion: 'Three', check: { type: 'tool_called' } },
    ];
    expectLoadError(libDir({ '01-shape.json': fixture('shape', { criteria }) }), '01-shape.json', /criteria/);
  });

  it('rejects a pass_threshold outside 0..1 and a non-integer max_turns', () => {
    expectLoadError(libDir({ '01-thr.json': fixture('thr', { pass_threshold: 1.5 }) }), '01-thr.json', /pass_threshold/);
    expectLoadError(libDir({ '01-mt.json': fixture('mt', { max_turns: 2.5 }) }), '01-mt.json', /max_turns/);
  });

  it('rejects a name longer than 80 characters', () => {
    expectLoadError(libDir({ '01-long.json': fixture('long', { name: 'x'.repeat(81) }) }), '01-long.json', /\/name/);
  });

  it('rejects a file that is not valid JSON', () => {
    expectLoadError(libDir({ '01-a.json': fixture('a'), '02-broken.json': '{ "id": ' }), '02-broken.json', /not valid JSON/);
  });

  it('rejects an empty or missing directory', () => {
    expect(() => loadBuiltinLibrary(libDir({}))).toThrow(/no \*\.json templates/);
    expect(() => loadBuiltinLibrary(path.join(os.tmpdir(), `rehearsal-missing-${uuidv7()}`))).toThrow(/cannot read directory/);
  });

  it('caches per directory', () => {
    const dir = libDir({ '01-cached.json': fixture('cached') });
    const first = loadBuiltinLibrary(dir);
    fs.rmSync(path.join(dir, '01-cached.json'));
    expect(loadBuiltinLibrary(dir)[0]).toBe(first[0]);
  });
});
