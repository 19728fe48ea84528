import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';
import { openEmbedded, openPostgres, type Database } from './db/client.js';
import { lockDataDir } from './db/lock.js';
import { createSecretBox, generateSecret, type SecretBox } from './lib/secret-box.js';
import { syncBuiltinLibrary } from './modules/scenarios/builtin-sync.js';

export interface Runtime {
  db: Database;
  box: SecretBox;
  describeDb: string;
  close(): Promise<void>;
}

/** The embedded mode keeps its generated secret in the data dir (0600); the scaled mode requires one. */
function embeddedSecret(dataDir: string): string {
  const file = path.join(dataDir, 'secret.key');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const secret = generateSecret();
  fs.writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
  return secret;
}

/** Opens the database (locking the data dir in embedded mode), migrates it and loads the library. */
export async function openRuntime(config: Config, opts: { poolSize?: number } = {}): Promise<Runtime> {
  let release = () => {};
  let db: Database;
  let secret: string;
  let describeDb: string;
  if (config.databaseUrl) {
    db = await openPostgres(config.databaseUrl, opts.poolSize);
    secret = config.secretKey!;
    const u = new URL(config.databaseUrl);
    describeDb = `PostgreSQL at ${u.hostname}:${u.port || 5432}${u.pathname}`;
  } else {
    const dir = path.resolve(config.dataDir);
    release = lockDataDir(dir);
    try {
      db = await openEmbedded(path.join(dir, 'pgdata'));
      secret = config.secretKey ?? embeddedSecret(dir);
    } catch (err) {
      release();
      throw err;
    }
    describeDb = `embedded PostgreSQL (PGlite) in ${dir}`;
  }
  try {
    await db.migrate();
    await syncBuiltinLibrary(db, new Date());
  } catch (err) {
    await db.close().catch(() => {});
    release();
    throw err;
  }
  return {
    db, box: createSecretBox(secret), describeDb,
    close: async () => {
      await db.close().catch(() => {});
      release();
    },
  };
}
