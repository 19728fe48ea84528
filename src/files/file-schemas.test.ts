import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fileJsonSchema, FILE_KINDS, type FileKind } from './file-schemas.js';

// schemas/*.json ship in the package for editors (yaml-language-server); they must be what the code generates.
// `UPDATE_SCHEMAS=1 npx vitest run src/files/file-schemas.test.ts` rewrites them.
const dir = fileURLToPath(new URL('../../schemas/', import.meta.url));

describe('shipped JSON Schemas of the project files', () => {
  for (const kind of Object.keys(FILE_KINDS) as FileKind[]) {
    it(`schemas/${kind}.json is generated from the TypeBox schema`, () => {
      const text = JSON.stringify(fileJsonSchema(kind), null, 2) + '\n';
      if (process.env.UPDATE_SCHEMAS) fs.writeFileSync(`${dir}${kind}.json`, text);
      expect(fs.readFileSync(`${dir}${kind}.json`, 'utf8')).toBe(text);
      expect(fileJsonSchema(kind).additionalProperties).toBe(false);
    });
  }
});

describe('served JSON Schemas', () => {
  it('GET /api/v1/schemas/<kind>.json answers without a key; unknown kinds are 404 in the envelope', async () => {
    const { createTestContext } = await import('../../test/harness.js');
    const t = await createTestContext();
    try {
      for (const kind of Object.keys(FILE_KINDS) as FileKind[]) {
        const res = await t.call('GET', `/api/v1/schemas/${kind}.json`, { key: null });
        expect(res.status).toBe(200);
        expect(res.body).toEqual(fileJsonSchema(kind));
      }
      const missing = await t.call('GET', '/api/v1/schemas/agent.json', { key: null });
      expect(missing.status).toBe(401);
      expect((await t.call('GET', '/api/v1/schemas/agent.json')).body.code).toBe('NOT_FOUND');
    } finally {
      await t.close();
    }
  });
});

describe('the JSON Schemas reject what validate rejects, field by field', async () => {
  // the packages' CommonJS default exports, as src/http/validation.ts reads them
  const AjvModule: any = await import('ajv');
  const formatsModule: any = await import('ajv-formats');
  const Ajv = AjvModule.default.default ?? AjvModule.default;
  const addFormats = formatsModule.default.default ?? formatsModule.default;
  const YAML = await import('yaml');
  const os = await import('node:os');
  const path = await import('node:path');
  const { loadProject } = await import('./project.js');
  // an editor's validator: standard draft-07, nothing of ours
  const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
  const check = (kind: FileKind, text: string) => ajv.validate(fileJsonSchema(kind), YAML.parse(text));
  const validateSays = (kind: FileKind, text: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-schema-'));
    try {
      const file = kind === 'rehearsal' ? 'rehearsal.yaml' : kind === 'scenario' ? 'scenarios/one.yaml' : 'suites/one.yaml';
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
      // a suite needs the scenario it names
      if (kind === 'suite') { fs.mkdirSync(path.join(dir, 'scenarios')); fs.writeFileSync(path.join(dir, 'scenarios/one.yaml'), 'name: One\ncriteria:\n  - criterion: c\n'); }
      return loadProject(dir, {}).problems.length === 0;
    } finally { fs.rmSync(dir, { recursive: true, force: true }); }
  };
  const cases: Array<[FileKind, string, boolean]> = [
    ['scenario', 'name: One\ncriteria:\n  - criterion: c\n    max_points: 2\n', true],
    ['scenario', 'name: One\ncriteria:\n  - criterion: c\n    colour: red\n', false],
    ['scenario', 'name: One\ncriteria:\n  - criterion: c\n    check: { type: contains, value: x, extra: 1 }\n', false],
    ['scenario', 'name: One\ncriteria:\n  - criterion: c\nslug: one\n', false],
    ['scenario', 'name: One\ncriteria:\n  - criterion: c\nmax_turns: 51\n', false],
    ['scenario', 'name: One\n', false],
    ['scenario', 'name: One\ncriteria:\n  - criterion: c\n    max_points: lots\n', false],
    ['suite', 'name: S\nscenarios: [one]\n', true],
    ['suite', 'name: S\nscenarios: [one]\nowner: me\n', false],
    ['suite', 'name: S\nscenarios: []\n', false],
    ['suite', 'name: S\nscenarios: [Not_A_Slug]\n', false],
    ['rehearsal', 'agent: Desk\nsuite: S\nrepeats: 3\nmin_coverage: 80\nfail_on_regression: true\n', true],
    ['rehearsal', 'agent: Desk\nrepeats: 11\n', false],
    ['rehearsal', 'agent: Desk\nmin_coverage: 101\n', false],
    ['rehearsal', 'agent: Desk\ncolour: blue\n', false],
    ['rehearsal', 'agent:\n  provider: provider_4\n  name: Bot\n  config: { base_url: "http://127.0.0.1:9/v1", model: m }\n  colour: blue\n', false],
  ];
  for (const [kind, text, ok] of cases) {
    it(`${kind}: ${JSON.stringify(text).slice(0, 70)} → ${ok ? 'valid' : 'invalid'}`, () => {
      expect(check(kind, text), JSON.stringify(ajv.errors)).toBe(ok);
      expect(validateSays(kind, text)).toBe(ok);
    });
  }
});
