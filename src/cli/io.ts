import { RehearsalClient, RehearsalError, type FetchLike } from '../client/index.js';

/** Where a command writes, and what it knows about its terminal; tests pass their own. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr (where progress goes) is a terminal. */
  isTTY: boolean;
  columns: number;
  env: NodeJS.ProcessEnv;
  /** Routes the client's HTTP calls (tests use app.inject). */
  fetch?: FetchLike;
  /** Aborted on SIGINT/SIGTERM. */
  signal?: AbortSignal;
}

export function processIo(signal?: AbortSignal): CliIo {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    isTTY: Boolean(process.stderr.isTTY),
    // logs (CI, files) do not wrap, so tables may use a wide line there
    columns: process.stdout.isTTY ? process.stdout.columns || 100 : 160,
    env: process.env,
    signal,
  };
}

/** Exit codes of the client-side commands (`rehearsal run` documents them in docs/ci.md). */
export const EXIT = { OK: 0, BELOW_THRESHOLD: 1, RUN_FAILED: 2, USAGE: 3 } as const;

/** A problem with how the command was called or configured: exit 3. */
export class UsageError extends Error {}

export interface ConnectionOptions {
  url?: string;
  apiKey?: string;
}

/** --url/--api-key, else REHEARSAL_URL/REHEARSAL_API_KEY. */
export function connect(opts: ConnectionOptions, io: CliIo): RehearsalClient {
  const url = opts.url ?? io.env.REHEARSAL_URL;
  const apiKey = opts.apiKey ?? io.env.REHEARSAL_API_KEY;
  if (!url) throw new UsageError('no service URL: pass --url or set REHEARSAL_URL (e.g. http://127.0.0.1:3000)');
  if (!apiKey) throw new UsageError('no API key: pass --api-key or set REHEARSAL_API_KEY (create one with `rehearsal keys create --org <name>`)');
  if (!/^https?:\/\//.test(url)) throw new UsageError(`--url must start with http:// or https:// (got ${JSON.stringify(url)})`);
  return new RehearsalClient({ baseUrl: url, apiKey, fetch: io.fetch, userAgent: 'rehearsal-cli' });
}

/** Errors that mean "fix your command or configuration": bad key, unknown id, invalid value, unreachable URL. */
export function isUsageProblem(err: unknown): boolean {
  if (err instanceof UsageError) return true;
  if (!(err instanceof RehearsalError)) return false;
  return err.code === 'NETWORK_ERROR' || err.code === 'INVALID_BASE_URL' || [400, 401, 403, 404, 405, 409, 413].includes(err.status);
}

export function describeError(err: unknown): string {
  if (err instanceof RehearsalError) {
    const where = err.requestId ? ` (request ${err.requestId})` : '';
    const field = typeof err.details?.field === 'string' ? ` [${err.details.field}]` : '';
    return err.status ? `${err.code}: ${err.message}${field}${where}` : err.message;
  }
  return (err as Error)?.message ?? String(err);
}

/** A positive number of seconds, or a usage error naming the option. */
export function parseSeconds(value: string | undefined, option: string, fallback: number, min = 0.01): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min) throw new UsageError(`${option} must be a number of seconds ≥ ${min} (got ${JSON.stringify(value)})`);
  return n;
}

export function parseIntOption(value: string | undefined, option: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${option} must be an integer from ${min} to ${max} (got ${JSON.stringify(value)})`);
  return n;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string) => UUID_RE.test(s);

/** Finds a resource by UUID or by name (names are unique per organization, compared case-insensitively). */
export async function byIdOrName<T extends { id: string; name: string }>(
  what: string, ref: string, get: (id: string) => Promise<T>, all: () => AsyncIterable<T>,
): Promise<T> {
  if (isUuid(ref)) {
    try {
      return await get(ref);
    } catch (err) {
      if (err instanceof RehearsalError && err.status === 404) throw new UsageError(`${what} ${ref} not found`);
      throw err;
    }
  }
  const key = ref.trim().toLowerCase();
  for await (const item of all()) if (item.name.trim().toLowerCase() === key) return item;
  throw new UsageError(`no ${what} named ${JSON.stringify(ref)}`);
}
