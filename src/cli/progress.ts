import type { Run } from '../client/index.js';
import type { CliIo } from './io.js';

// Run progress while polling: a bar redrawn in place on a terminal, plain lines otherwise (CI logs),
// written to stderr so that stdout stays clean for tables and --json.

export interface Progress {
  update(run: Run): void;
  /** Ends the bar's line (terminal) or prints the final state once (plain). */
  finish(run: Run): void;
}

const counts = (r: Run) => {
  const done = r.passed_count + r.failed_count + r.error_count;
  return { done, text: `${done}/${r.total_scenarios} done · ${r.passed_count} passed · ${r.failed_count} failed · ${r.error_count} errors` };
};

export function createProgress(io: CliIo, opts: { minIntervalMs?: number; now?: () => number } = {}): Progress {
  const now = opts.now ?? Date.now;
  const minInterval = opts.minIntervalMs ?? 5000;
  let lastKey = '';
  let lastAt = -Infinity;
  let drawn = false;

  if (io.isTTY) {
    const draw = (r: Run) => {
      const { done, text } = counts(r);
      const width = Math.max(10, Math.min(30, io.columns - 70));
      const filled = r.total_scenarios ? Math.round((width * done) / r.total_scenarios) : 0;
      io.err(`\r\x1b[2K[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${text} · ${r.status}`);
      drawn = true;
    };
    return {
      update: draw,
      finish: (r) => {
        draw(r);
        if (drawn) io.err('\n');
      },
    };
  }

  const line = (r: Run) => `${r.test_run_id} ${r.status}: ${counts(r).text}\n`;
  return {
    update(r) {
      const key = line(r);
      if (key === lastKey || now() - lastAt < minInterval) return;
      lastKey = key;
      lastAt = now();
      io.err(key);
    },
    finish(r) {
      if (line(r) !== lastKey) io.err(line(r));
    },
  };
}
