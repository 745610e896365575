// Shared start-up for the server and the CLI: configuration, the secret key and the store.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import type { Config } from './config.ts';
import type { SecretKey } from './domain/credentials.ts';
import { SecretKeyMismatchError, secretKeyCheckValue, secretKeyMatches } from './domain/secret-key-check.ts';
import type { Store } from './app/ports/store.ts';
import { openStore } from './store/open-store.ts';

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
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 }); // the data directory: the owner's alone
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}

/**
 * Opens the store every process (server or CLI) works on: migrated (unless told not to) and
 * checked against the secret key the database was first started with, so instances or a CLI
 * with another key refuse to start instead of answering every merchant 401.
 * `onMigrated` receives the names of the migrations this call applied.
 */
export async function openMigratedStore(
  config: Config,
  migrate = config.migrateOnStart,
  onMigrated?: (applied: string[]) => void,
): Promise<Store> {
  const key = resolveSecretKey(config);
  const store = openStore(config.databaseUrl, { poolSize: config.databasePoolSize });
  try {
    if (migrate) {
      const applied = await store.migrate();
      onMigrated?.(applied);
    }
    await verifySecretKey(store, key);
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

const KEY_CHECK = 'secret_key_check';

/** The first process to start records the key's check value; every later one must match it. */
export async function verifySecretKey(store: Pick<Store, 'meta'>, key: SecretKey, now = Date.now()): Promise<void> {
  const stored = await store.meta.getOrInsert(KEY_CHECK, secretKeyCheckValue(key), now);
  if (!secretKeyMatches(key, stored)) throw new SecretKeyMismatchError();
}
