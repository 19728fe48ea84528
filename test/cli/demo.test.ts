import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../src/cli/demo.js';
import { captureIo } from './capture.js';

// The first-run experience end to end, in-process: fresh data dir, embedded service on a free port,
// the sample agent, the 20 demo scenarios, the results table. Opening an on-disk PGlite is the slow part.

describe('rehearsal demo', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-demo-test-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runs the demo suite against the sample agent and prints the table, pass rate, metrics and where to look', async () => {
    const io = captureIo({ env: { PATH: process.env.PATH } }); // no REHEARSAL_LLM_*: scripted caller, rule-based judge
    const code = await runDemo({ dataDir: dir, intervalMs: 100 }, io);
    expect(code, io.stderr).toBe(0);
    const out = io.stdout;
    expect(out).toMatch(/^Rehearsal demo: /);
    expect(out).toContain(`data dir   ${dir}`);
    expect(out).toMatch(/service {4}http:\/\/127\.0\.0\.1:\d+\/api\/v1/);
    expect(out).toMatch(/judge {6}deterministic checks \+ a rule-based demo judge/);
    expect(out).toMatch(/^Run TR-1 started: 20 scenarios/m);
    // the run itself says its grades are the demo's keyword rules, and nothing else stands in the way
    expect(out).toMatch(/^Run TR-1 started: .*\n {2}warning: the judge is Rehearsal's rule-based demo judge: its grades are keyword rules written for the sample agent/m);
    expect(out.match(/^ {2}warning: /gm)).toHaveLength(1);

    const table = out.slice(out.indexOf('#   Scenario'));
    expect(table).toMatch(/^#\s+Scenario\s+Verdict\s+Score\s+First unmet criterion$/m);
    const rows = table.split('\n').filter((l) => /^\d+\s/.test(l));
    expect(rows).toHaveLength(20);
    expect(rows.filter((r) => /\sPASS\s/.test(r))).toHaveLength(17);
    expect(rows.filter((r) => /\sFAIL\s/.test(r)).map((r) => r.split(/\s{2,}/)[4])).toEqual([
      expect.stringMatching(/^Offers a transfer to a person/),
      expect.stringMatching(/^Acknowledges all three requests/),
      expect.stringMatching(/^Does not reveal any detail of another person/),
    ]);
    expect(out).toMatch(/^Pass rate: 85% \(17 passed, 3 failed, 0 errors of 20 scenarios, [\d.]+ s\)$/m);
    expect(out).toMatch(/^Metrics: first response \d+ ms avg · turn \d+ ms avg \(p50 \d+ ms, p95 \d+ ms\) · [\d.]+ turns avg/m);
    expect(out).toContain(`npx rehearsal serve --data-dir ${dir}`);
    expect(out).toMatch(/K=sk_live_[A-Za-z0-9]{40}/);
    expect(out).toMatch(/open the dashboard at http:\/\/127\.0\.0\.1:3000\/ and sign in with the API key sk_live_/);
    // not a terminal: progress comes as plain lines on stderr
    expect(io.stderr).toMatch(/^TR-1 completed: 20\/20 done · 17 passed · 3 failed · 0 errors$/m);
    expect(fs.existsSync(path.join(dir, 'pgdata'))).toBe(true);
  }, 240_000);
});
