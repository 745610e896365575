// Webhook signing secrets must be usable (the gateway signs with them), so unlike passwords
// they cannot be hashed: they are sealed with AES-256-GCM under a key derived from the
// gateway's secret key, and opened only when a notification is signed.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { SecretKey } from './credentials.ts';

function sealingKey(key: SecretKey): Buffer {
  return createHmac('sha256', key).update('webhook-secret-sealing\0').digest();
}

export function sealSecret(key: SecretKey, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(key), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1.${iv.toString('base64url')}.${body.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
}

export function openSecret(key: SecretKey, sealed: string): string {
  const [version, iv, body, tag] = sealed.split('.');
  if (version !== 'v1' || !iv || !body || !tag) throw new Error('sealed secret has an unknown format');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(key), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
