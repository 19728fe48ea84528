import type { FetchLike } from '../../src/client/index.js';
import type { CliIo } from '../../src/cli/io.js';

export interface Captured extends CliIo {
  stdout: string;
  stderr: string;
}

/** A CliIo that records what a command writes. */
export function captureIo(opts: { fetch?: FetchLike; env?: NodeJS.ProcessEnv; isTTY?: boolean; columns?: number } = {}): Captured {
  const io: Captured = {
    stdout: '',
    stderr: '',
    out: (t) => { io.stdout += t; },
    err: (t) => { io.stderr += t; },
    isTTY: opts.isTTY ?? false,
    columns: opts.columns ?? 160,
    env: opts.env ?? {},
    fetch: opts.fetch,
  };
  return io;
}
