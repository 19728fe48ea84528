/**
 * Does an answer match what the OpenAPI document says the operation answers? Its status must be listed in
 * the operation's `responses`, and an error body must validate against the schema documented for that
 * status (the shared error responses narrow `code` to the codes of the status).
 */
import Ajv2020 from 'ajv/dist/2020.js';
import { resolveRef } from './routes.js';

/** Replaces every local $ref by its target (the error schemas are small and not recursive). */
function deref(doc: any, s: any, depth = 0): any {
  if (depth > 20 || s === null || typeof s !== 'object') return s;
  if (Array.isArray(s)) return s.map((x) => deref(doc, x, depth + 1));
  if (typeof s.$ref === 'string') return deref(doc, resolveRef(doc, s), depth + 1);
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, deref(doc, v, depth + 1)]));
}

export function documentChecker(doc: any) {
  const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true, validateFormats: false });
  const cache = new Map<string, ReturnType<typeof ajv.compile> | null>();
  const operation = (method: string, path: string) => doc.paths?.[path]?.[method.toLowerCase()];

  const validatorFor = (method: string, path: string, status: number) => {
    const key = `${method} ${path} ${status}`;
    if (!cache.has(key)) {
      const response = resolveRef(doc, operation(method, path)?.responses?.[String(status)]);
      const schema = response?.content?.['application/json']?.schema;
      cache.set(key, schema ? ajv.compile(deref(doc, schema)) : null);
    }
    return cache.get(key)!;
  };

  return {
    /** The statuses the document lists for the operation. */
    statuses: (method: string, path: string): number[] => Object.keys(operation(method, path)?.responses ?? {}).map(Number),
    /** Why the answer does not match the document (empty when it does). `path` is the document's template. */
    problems(method: string, path: string, res: { status: number; body: unknown }): string[] {
      const op = operation(method, path);
      if (!op) return [`${method} ${path} is not an operation of the document`];
      if (!(String(res.status) in (op.responses ?? {}))) {
        return [`${method} ${path} answered ${res.status}, which its OpenAPI responses do not list (${Object.keys(op.responses ?? {}).join(', ')})`];
      }
      if (res.status < 400) return [];
      const validate = validatorFor(method, path, res.status);
      if (!validate) return [`${method} ${path} documents ${res.status} without a JSON schema`];
      if (validate(res.body)) return [];
      return [`${method} ${path} ${res.status} body ${JSON.stringify(res.body)?.slice(0, 200)} does not match the documented schema: ${ajv.errorsText(validate.errors)}`];
    },
  };
}
