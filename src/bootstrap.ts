// Shared start-up for the server and the CLI: configuration, the secret key and the store.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import type { Config } from './config.ts';
import { openStore, type Store } from './store/open-store.ts';

/**
 * The key behind password hashes and sealed webhook secrets. Live mode requires
 * GATEWAY_SECRET_KEY; sandbox falls back to a key file created once under ./data/, so
 * `npm start` needs no setup and restarts keep the same credentials valid.
 */
export function resolveSecretKey(config: Config): Buffer {
  if (config.secretKey) return config.secretKey;
  if (config.mode === 'live') throw new Error('GATEWAY_SECRET_KEY is required in live mode');
  const file = config.secretKeyFile;
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length < 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    return key;
  }
  mkdirSync(dirname(file), { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}

export async function openMigratedStore(config: Config, migrate = config.migrateOnStart): Promise<Store> {
  const store = openStore(config.databaseUrl, { poolSize: config.databasePoolSize });
  try {
    if (migrate) await store.migrate();
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}
