/**
 * The embedded-mode target of bench/api.ts: the service on PGlite in a temp data dir, API only. Prints
 * `{"ready":true,base,key}`, then executes SQL sent as JSON lines on stdin (the data dir is locked to
 * this process, so the benchmark seeds and cleans through it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/server.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-bench-api-'));
const config = loadConfig({ ...process.env, REHEARSAL_DATA_DIR: dir });
let key = '';
const svc = await startService(config, {
  api: true, worker: false,
  print: (l) => { const m = /^\s+(sk_\w+)/.exec(l); if (m) key = m[1]; },
});
const out = (msg: unknown) => process.stdout.write(JSON.stringify(msg) + '\n');
out({ ready: true, base: svc.url, key });

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, text, params } = JSON.parse(line) as { id: number; text: string; params: unknown[] };
  svc.deps.db.executeSql(text, params.length ? params : undefined)
    .then((r) => out({ id, rows: r.rows }), (err) => out({ id, error: (err as Error).message }));
});

process.on('SIGTERM', async () => {
  await svc.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
