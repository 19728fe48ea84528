/** Request bodies from an operation's JSON schema (the OpenAPI document's), for bench/openapi-sweep.ts. */
import { mulberry32 } from '../test/mulberry32.js';
import { resolveRef } from '../test/contract/routes.js';

export type Random = () => number;

export { mulberry32 as makeRandom };

const ODD = ['', ' ', 'a\u0000b', '\ud800', '🙂', 'x'.repeat(5000), '<script>', "' OR 1=1 --", 'TR-1', '00000000-0000-0000-0000-000000000000', 'http://127.0.0.1:9/x', 'javascript:alert(1)', '2099-02-30T00:00:00Z'];
const ANY = [null, true, 0, -1, 1.5, 1e300, 'x', [], {}, [1, 'a'], { a: { b: 1 } }];

/** A value for `schema`: mostly of the right type (edges included), sometimes anything. */
export function valueFor(schema: any, doc: any, rnd: Random, depth = 0): unknown {
  const s = resolveRef(doc, schema) ?? {};
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
  if (rnd() < 0.15 || depth > 4) return pick(ANY);
  if (Array.isArray(s.enum)) return rnd() < 0.8 ? pick(s.enum) : pick(ODD);
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches)) return valueFor(pick(branches), doc, rnd, depth + 1);
  if (Array.isArray(s.allOf) && s.allOf.some((x: any) => x.then)) return valueFor(pick<any>(s.allOf.filter((x: any) => x.then)).then, doc, rnd, depth + 1);
  switch (Array.isArray(s.type) ? s.type[0] : s.type) {
    case 'string': return rnd() < 0.5 ? pick(ODD) : `s-${Math.floor(rnd() * 1e6)}`.repeat(1 + Math.floor(rnd() * 3));
    case 'integer':
    case 'number': return pick([0, 1, -1, 2, 50, 100, 101, 1000, 2 ** 31, 1.5, s.minimum ?? 0, (s.maximum ?? 10) + 1]);
    case 'boolean': return rnd() < 0.5;
    case 'null': return null;
    case 'array': return Array.from({ length: Math.floor(rnd() * 4) }, () => valueFor(s.items ?? {}, doc, rnd, depth + 1));
    default: {
      const props = Object.entries<any>(s.properties ?? {});
      if (props.length === 0) return pick(ANY);
      return Object.fromEntries(props.filter(() => rnd() < 0.7).map(([k, v]) => [k, valueFor(v, doc, rnd, depth + 1)]));
    }
  }
}

/** A body for an operation: its valid body with one field changed, dropped or added, or one built from the schema. */
export function bodyFor(schema: any, doc: any, rnd: Random, valid: unknown): unknown {
  const s = resolveRef(doc, schema) ?? {};
  const props = Object.entries<any>(s.properties ?? {});
  if (!valid || typeof valid !== 'object' || props.length === 0 || rnd() < 0.3) return valueFor(s, doc, rnd);
  const body = { ...(valid as Record<string, unknown>) };
  const [k, v] = props[Math.floor(rnd() * props.length)];
  const r = rnd();
  if (r < 0.6) body[k] = valueFor(v, doc, rnd, 1);
  else if (r < 0.8) delete body[k];
  else body[`extra_${Math.floor(rnd() * 100)}`] = 1;
  return body;
}
