import type { Document, LineCounter } from 'yaml';
import { AppError } from '../http/errors.js';
import { isSecretPath } from '../lib/field-errors.js';
import { configSchemaOf, isProviderName, validateAgentConfig, type ProviderName } from '../providers/configs.js';
import { lineOf, type Problem } from './yaml-problems.js';

// An inline agent in rehearsal.yaml: its secrets come from `${ENV_VAR}` references, never literal values,
// because agent files end up in pull requests. Any string of the config may hold references.

export interface InlineAgent { provider: string; name: string; config: Record<string, unknown> }

const REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const WHOLE_REF = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

function isSecretField(provider: string, key: string): boolean {
  if (isSecretPath(key)) return true;
  if (!isProviderName(provider)) return false;
  return (configSchemaOf(provider).properties[key] as { writeOnly?: boolean } | undefined)?.writeOnly === true;
}

/** Substitutes references in every string, recording unset variables; the substituted copy is returned. */
function substitute(v: unknown, at: (string | number)[], env: NodeJS.ProcessEnv, unset: { path: (string | number)[]; name: string }[]): unknown {
  if (typeof v === 'string') {
    return v.replace(REF, (_m, name: string) => {
      const val = env[name];
      if (val === undefined) { unset.push({ path: at, name }); return ''; }
      return val;
    });
  }
  if (Array.isArray(v)) return v.map((x, i) => substitute(x, [...at, i], env, unset));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, [...at, k], env, unset)]));
  return v;
}

export function checkInlineAgent(p: { doc: Document; lc: LineCounter; file: string }, agent: InlineAgent, env: NodeJS.ProcessEnv, problems: Problem[]): InlineAgent | null {
  const before = problems.length;
  const line = (path: (string | number)[]) => lineOf(p.doc, p.lc, ['agent', 'config', ...path]);
  for (const [key, value] of Object.entries(agent.config)) {
    if (isSecretField(agent.provider, key) && !(typeof value === 'string' && WHOLE_REF.test(value))) {
      problems.push({ file: p.file, line: line([key]), field: `agent.config.${key}`, message: 'is a secret: write it as a ${ENV_VAR} reference, never a literal value' });
    }
  }
  const unset: { path: (string | number)[]; name: string }[] = [];
  const config = substitute(agent.config, [], env, unset) as Record<string, unknown>;
  for (const u of unset) {
    const field = ['agent.config', ...u.path].join('.');
    problems.push({ file: p.file, line: line(u.path), field, message: `the environment variable ${u.name} is not set` });
  }
  if (problems.length > before) return null;
  try {
    validateAgentConfig(agent.provider as ProviderName, config);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const field = String(err.details?.field ?? 'config');
    const path = field.split('.').slice(1);
    problems.push({ file: p.file, line: line(path), field: `agent.${field}`, message: err.message });
    return null;
  }
  return { provider: agent.provider, name: agent.name, config };
}
