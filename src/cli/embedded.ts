import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { createApiKey } from '../modules/api-keys/api-keys.service.js';
import { findOrCreateOrganization } from '../modules/organizations/organizations.service.js';
import { startService } from '../server.js';

// `rehearsal test --embedded`: an in-process service in a temporary data dir, configured from the same
// environment as `rehearsal serve` (LLM endpoint, judge and tester models), on a free loopback port.

export interface Embedded { url: string; apiKey: string; stop(): Promise<void> }

export async function startEmbedded(env: NodeJS.ProcessEnv): Promise<Embedded> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearsal-test-'));
  const { DATABASE_URL: _db, REHEARSAL_SECRET_KEY: _secret, PORT: _port, HOST: _host, ...rest } = env;
  const config = loadConfig({ ...rest, PORT: '0', HOST: '127.0.0.1', REHEARSAL_DATA_DIR: dataDir, LOG_LEVEL: env.LOG_LEVEL ?? 'error' });
  const svc = await startService(config, { api: true, worker: true, print: () => {}, engine: { pollIntervalMs: 100 } });
  try {
    const { org } = await findOrCreateOrganization(svc.deps.db, 'default', new Date());
    const key = (await createApiKey(svc.deps, { orgId: org.id }, { name: 'rehearsal test' })).key;
    return {
      url: svc.url!, apiKey: key,
      stop: async () => { await svc.stop(); fs.rmSync(dataDir, { recursive: true, force: true }); },
    };
  } catch (err) {
    await svc.stop();
    throw err;
  }
}
