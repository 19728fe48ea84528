import type { ErrorObject } from 'ajv';
import { isMap, isScalar, type Document, type LineCounter, type Node } from 'yaml';

// Turns schema errors into `<file>:<line>: <field>: <message>` problems, the line found in the YAML node tree.

export interface Problem { file: string; line: number; field: string; message: string }

export const formatProblem = (p: Problem) => `${p.file}:${p.line}: ${p.field}: ${p.message}`;

type Segment = string | number;

/** `['criteria', 1, 'max_points']` → `criteria[1].max_points`. */
export function fieldPath(path: Segment[]): string {
  return path.reduce<string>((acc, s) => (typeof s === 'number' ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
}

const segments = (instancePath: string): Segment[] =>
  instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')).map((s) => (/^\d+$/.test(s) ? Number(s) : s));

export function lineOf(doc: Document, lc: LineCounter, path: Segment[], key?: string): number {
  const node = (path.length === 0 ? doc.contents : doc.getIn(path, true)) as Node | null | undefined;
  if (key !== undefined && node && isMap(node)) {
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
    const k = pair?.key as Node | undefined;
    if (k?.range) return lc.linePos(k.range[0]).line;
  }
  if (node?.range) return lc.linePos(node.range[0]).line;
  // a path the tree lacks (e.g. an empty document): the closest ancestor that exists
  return path.length > 0 ? lineOf(doc, lc, path.slice(0, -1)) : 1;
}

/** One problem per offending field: branch noise from unions and if/then is folded into the real error. */
export function schemaProblems(file: string, doc: Document, lc: LineCounter, errors: ErrorObject[]): Problem[] {
  const out = new Map<string, Problem>();
  const add = (path: Segment[], message: string, key?: string) => {
    const field = fieldPath(key === undefined ? path : [...path, key]) || '(file)';
    if (!out.has(field)) out.set(field, { file, line: lineOf(doc, lc, path, key), field, message });
  };
  const real = errors.filter((e) => e.keyword !== 'if' && !(e.keyword === 'required' && /\/(anyOf|oneOf)\/\d+\//.test(e.schemaPath) && !e.schemaPath.includes('/then/')));
  // deeper and more specific errors first, so a union's "must match a schema in anyOf" yields to its branch's reason
  const rank = (e: ErrorObject) => (e.keyword === 'anyOf' || e.keyword === 'type' ? 1 : 0);
  real.sort((a, b) => b.instancePath.length - a.instancePath.length || rank(a) - rank(b));
  for (const e of real) {
    const path = segments(e.instancePath);
    if (e.keyword === 'required') add(path, 'is required', String(e.params.missingProperty));
    else if (e.keyword === 'additionalProperties') add(path, 'is not a known field', String(e.params.additionalProperty));
    else if (e.keyword === 'enum') add(path, `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`);
    else if (e.keyword === 'anyOf') add(path, 'has an invalid value');
    else add(path, e.message ?? 'is invalid');
  }
  return [...out.values()];
}
