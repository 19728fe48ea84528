import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

// The only reader of process.env. A bad value stops the process with a message naming the variable.
const IntStr = (min: number, max: number) => Type.String({ pattern: '^[0-9]+$', description: `integer ${min}-${max}` });

const EnvSchema = Type.Object({
  PORT: Type.Optional(IntStr(0, 65535)),
  HOST: Type.Optional(Type.String({ minLength: 1 })),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  REHEARSAL_DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  REHEARSAL_SECRET_KEY: Type.Optional(Type.String({ minLength: 32 })),
  REHEARSAL_LLM_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  REHEARSAL_LLM_API_KEY: Type.Optional(Type.String()),
  REHEARSAL_TESTER_MODEL: Type.Optional(Type.String({ minLength: 1 })),
  REHEARSAL_JUDGE_MODEL: Type.Optional(Type.String({ minLength: 1 })),
  REHEARSAL_JUDGE_CONFIRMATIONS: Type.Optional(IntStr(0, 10)),
  REHEARSAL_GENERATOR_MODEL: Type.Optional(Type.String({ minLength: 1 })),
  REHEARSAL_LLM_PRICE_PER_1K_INPUT: Type.Optional(Type.String({ pattern: '^\\d+(\\.\\d+)?$' })),
  REHEARSAL_LLM_PRICE_PER_1K_OUTPUT: Type.Optional(Type.String({ pattern: '^\\d+(\\.\\d+)?$' })),
  REHEARSAL_MAX_CONCURRENT_RUNS: Type.Optional(IntStr(1, 10000)),
  REHEARSAL_RATE_LIMIT_PER_MINUTE: Type.Optional(IntStr(1, 1_000_000)),
  REHEARSAL_SCENARIO_CONCURRENCY: Type.Optional(IntStr(1, 10000)),
  REHEARSAL_WORKER_CONCURRENCY: Type.Optional(IntStr(1, 100000)),
  REHEARSAL_WORKER_LEASE_SECONDS: Type.Optional(IntStr(2, 3600)),
  REHEARSAL_WEBHOOK_ALLOW_PRIVATE: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  REHEARSAL_WEBHOOK_RETRY_SCHEDULE: Type.Optional(Type.String({ pattern: '^\\s*\\d+(\\.\\d+)?(\\s*,\\s*\\d+(\\.\\d+)?)*\\s*$' })),
  REHEARSAL_FAULT_RETRIES: Type.Optional(IntStr(0, 10)),
  REHEARSAL_VOICE_TESTER_MODEL: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._-]+/[^\\s]+$' })),
  LOG_LEVEL: Type.Optional(Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)))),
});

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  dataDir: string;
  secretKey: string | null;
  llm: {
    baseUrl: string | null; apiKey: string | null; testerModel: string | null; judgeModel: string | null; generatorModel?: string | null;
    /** Set only by `rehearsal demo`: the judge is its rule set written for the sample agent, not a model. */
    demoJudge?: boolean;
  };
  /** Extra judge calls that may confirm a NOT_MET or PARTIAL (and re-ask invented evidence); 0 turns them off. */
  judgeConfirmations: number;
  /** USD per 1,000 tokens for the dry run's cost estimate; null when not configured. */
  llmPrices?: { input: number | null; output: number | null };
  maxConcurrentRuns: number;
  rateLimitPerMinute: number;
  scenarioConcurrency: number;
  workerConcurrency: number;
  /** How long a worker's hold on a conversation lasts without renewal; a killed worker's work is taken over after it. */
  workerLeaseMs: number;
  /** Extra attempts for a scenario run whose fault is not the agent's (tester, judge, provider, internal). */
  faultRetries: number;
  /** `<provider>/<model>` of the transient caller in voice calls the platform runs itself (Vapi `mode: "call"`). */
  voiceTesterModel: string;
  webhookAllowPrivate: boolean;
  webhookRetryScheduleSec: number[];
  logLevel: string;
}

export class ConfigError extends Error {}

function int(env: Static<typeof EnvSchema>, name: keyof Static<typeof EnvSchema>, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined) return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer between ${min} and ${max}`);
  return n;
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const env: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const v = source[key];
    if (v !== undefined && v !== '') env[key] = v;
  }
  if (!Value.Check(EnvSchema, env)) {
    const first = Value.Errors(EnvSchema, env).First();
    const name = first?.path.replace(/^\//, '') ?? 'environment';
    // never echo the value: it may be a secret
    throw new ConfigError(`Invalid environment variable ${name}: ${first?.message ?? 'invalid'}`);
  }
  const e = env as Static<typeof EnvSchema>;
  const databaseUrl = e.DATABASE_URL ?? null;
  if (databaseUrl && !e.REHEARSAL_SECRET_KEY) {
    throw new ConfigError('REHEARSAL_SECRET_KEY is required when DATABASE_URL is set (at least 32 characters; it encrypts agent credentials and webhook secrets)');
  }
  const schedule = (e.REHEARSAL_WEBHOOK_RETRY_SCHEDULE ?? '5,300,1800,7200,18000,36000,36000')
    .split(',').map((s) => Number(s.trim()));
  return {
    port: int(e, 'PORT', 3000, 0, 65535),
    host: e.HOST ?? '127.0.0.1',
    databaseUrl,
    dataDir: e.REHEARSAL_DATA_DIR ?? './.rehearsal',
    secretKey: e.REHEARSAL_SECRET_KEY ?? null,
    llm: {
      baseUrl: e.REHEARSAL_LLM_BASE_URL ?? null,
      apiKey: e.REHEARSAL_LLM_API_KEY ?? null,
      testerModel: e.REHEARSAL_TESTER_MODEL ?? null,
      judgeModel: e.REHEARSAL_JUDGE_MODEL ?? null,
      generatorModel: e.REHEARSAL_GENERATOR_MODEL ?? null,
    },
    llmPrices: {
      input: e.REHEARSAL_LLM_PRICE_PER_1K_INPUT === undefined ? null : Number(e.REHEARSAL_LLM_PRICE_PER_1K_INPUT),
      output: e.REHEARSAL_LLM_PRICE_PER_1K_OUTPUT === undefined ? null : Number(e.REHEARSAL_LLM_PRICE_PER_1K_OUTPUT),
    },
    judgeConfirmations: int(e, 'REHEARSAL_JUDGE_CONFIRMATIONS', 2, 0, 10),
    maxConcurrentRuns: int(e, 'REHEARSAL_MAX_CONCURRENT_RUNS', 5, 1, 10000),
    rateLimitPerMinute: int(e, 'REHEARSAL_RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
    scenarioConcurrency: int(e, 'REHEARSAL_SCENARIO_CONCURRENCY', 10, 1, 10000),
    workerConcurrency: int(e, 'REHEARSAL_WORKER_CONCURRENCY', 1000, 1, 100000),
    workerLeaseMs: 1000 * int(e, 'REHEARSAL_WORKER_LEASE_SECONDS', 30, 2, 3600),
    faultRetries: int(e, 'REHEARSAL_FAULT_RETRIES', 2, 0, 10),
    voiceTesterModel: e.REHEARSAL_VOICE_TESTER_MODEL ?? 'openai/gpt-4o-mini',
    webhookAllowPrivate: e.REHEARSAL_WEBHOOK_ALLOW_PRIVATE === 'true',
    webhookRetryScheduleSec: schedule,
    logLevel: e.LOG_LEVEL ?? 'info',
  };
}
