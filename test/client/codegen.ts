// Turns the service's OpenAPI document into the TypeScript types the client is written against
// (src/client/openapi-types.ts). The drift test regenerates it from the live app and compares, so the
// client's types cannot silently fall behind the routes.

type Schema = Record<string, any>;

export interface OpenApiDoc {
  paths: Record<string, Record<string, any>>;
  components?: { schemas?: Record<string, Schema> };
}

export const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export interface CodegenOptions {
  /** Operations with one of these tags are left out (browser-only routes an API-key client cannot use). */
  skipTags?: readonly string[];
}

const skipped = (op: { tags?: string[] } | undefined, o: CodegenOptions) => !op || (op.tags ?? []).some((t) => o.skipTags?.includes(t));

/** Every documented operation as "METHOD /path". */
export function listOperations(doc: OpenApiDoc, o: CodegenOptions = {}): string[] {
  const out: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const m of HTTP_METHODS) if (!skipped(item[m], o)) out.push(`${m.toUpperCase()} ${path}`);
  }
  return out;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (k: string) => (IDENT.test(k) ? k : JSON.stringify(k));
const comment = (text: string | undefined, indent: string) =>
  text ? `${indent}/** ${text.replace(/\*\//g, '*\\/').replace(/\s+/g, ' ').trim()} */\n` : '';

/** Structural identity of a schema, ignoring documentation-only keywords. */
function shape(s: unknown): string {
  return JSON.stringify(s, (k, v) => (['title', 'description', 'examples', '$id'].includes(k) ? undefined : v));
}

export function generateClientTypes(doc: OpenApiDoc, o: CodegenOptions = {}): string {
  const components = doc.components?.schemas ?? {};
  const refName = new Map<string, string>();
  const byShape = new Map<string, string>();
  for (const [id, s] of Object.entries(components)) {
    const name = s.title ?? id;
    refName.set(`#/components/schemas/${id}`, name);
    byShape.set(shape(s), name);
  }

  const ts = (s: Schema | undefined, indent: string, top = false): string => {
    if (!s || typeof s !== 'object') return 'unknown';
    if (s.$ref) return refName.get(s.$ref) ?? 'unknown';
    if (!top) {
      const named = byShape.get(shape(s));
      if (named) return named;
    }
    if (Array.isArray(s.allOf)) {
      // a union keyed by a discriminator, written as if/then branches (e.g. scenario checks by `type`)
      if (s.allOf.every((x: Schema) => x.if && x.then)) return s.allOf.map((x: Schema) => ts(x.then, indent)).join(' | ');
      return s.allOf.map((x: Schema) => ts(x, indent)).join(' & ');
    }
    if (s.anyOf) return s.anyOf.map((x: Schema) => ts(x, indent)).join(' | ');
    if (s.enum) return s.enum.map((v: unknown) => JSON.stringify(v)).join(' | ');
    if (s.const !== undefined) return JSON.stringify(s.const);
    switch (s.type) {
      case 'string': return 'string';
      case 'integer':
      case 'number': return 'number';
      case 'boolean': return 'boolean';
      case 'null': return 'null';
      case 'array': {
        const item = ts(s.items, indent);
        return /^[A-Za-z0-9_]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
      }
      case 'object': {
        const props = Object.entries<Schema>(s.properties ?? {});
        if (props.length === 0) {
          const ap = s.additionalProperties;
          return `Record<string, ${ap && typeof ap === 'object' ? ts(ap, indent) : 'unknown'}>`;
        }
        const required = new Set<string>(s.required ?? []);
        const inner = indent + '  ';
        const lines = props.map(([k, v]) => `${comment(v.description, inner)}${inner}${key(k)}${required.has(k) ? '' : '?'}: ${ts(v, inner)};`);
        return `{\n${lines.join('\n')}\n${indent}}`;
      }
    }
    return 'unknown';
  };

  const out: string[] = [
    '// Generated from GET /api/v1/openapi.json by test/client/openapi.test.ts. Do not edit by hand:',
    '// after changing a route, regenerate with `npm run client:types` and add a client method for any new operation.',
    '/* eslint-disable */',
    '',
  ];
  for (const s of Object.values(components)) {
    out.push(`${comment(s.description, '')}export interface ${s.title} ${ts(s, '', true)}`, '');
  }

  out.push('export interface Operations {');
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const m of HTTP_METHODS) {
      const op = item[m];
      if (skipped(op, o)) continue;
      const params = (op.parameters ?? []) as Array<{ in: string; name: string; required?: boolean; schema: Schema; description?: string }>;
      const group = (where: string) => {
        const ps = params.filter((p) => p.in === where);
        if (ps.length === 0) return 'Record<string, never>';
        const lines = ps.map((p) => `${comment(p.description, '      ')}      ${key(p.name)}${p.required ? '' : '?'}: ${ts(p.schema, '      ')};`);
        return `{\n${lines.join('\n')}\n    }`;
      };
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      // 201 first: POST /runs answers 200 only for a dry run (the client's runs.plan)
      const success = Object.keys(op.responses ?? {}).filter((c) => /^2\d\d$/.test(c)).sort((a, b) => (a === '201' ? -1 : b === '201' ? 1 : a.localeCompare(b)))[0];
      const resSchema = success ? op.responses[success]?.content?.['application/json']?.schema : undefined;
      out.push(
        `${comment(op.summary, '  ')}  ${JSON.stringify(`${m.toUpperCase()} ${path}`)}: {`,
        `    params: ${group('path')};`,
        `    query: ${group('query')};`,
        `    body: ${bodySchema ? ts(bodySchema, '    ') : 'never'};`,
        `    /** HTTP ${success ?? '2xx'} */`,
        `    response: ${resSchema ? ts(resSchema, '    ') : 'void'};`,
        '  };',
      );
    }
  }
  out.push('}', '');
  return out.join('\n');
}
