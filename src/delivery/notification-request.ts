// The headers of one notification attempt (contract §5): JSON, our User-Agent, and the
// Standard Webhooks trio. The body is the stored payload, untouched, so every attempt sends the
// same bytes; only webhook-timestamp and the signature over it change between attempts.
import type { SecretKey } from '../domain/credentials.ts';
import { openSecret } from '../domain/secret-box.ts';
import { signWebhook } from '../domain/webhook-signature.ts';
import type { MerchantRecord } from '../store/merchants.repo.ts';

/**
 * The secrets to sign with now: the current one, plus the previous one while its overlap after a
 * rotation lasts, so a merchant still holding the old secret keeps verifying. A previous secret
 * this key cannot open (rotated under another key, before rotation learned to drop it) is left
 * out rather than blocking every notification: the current one still signs.
 */
export function signingSecrets(merchant: MerchantRecord, key: SecretKey, nowMs: number): string[] {
  const secrets = [openSecret(key, merchant.webhookSecretSealed)];
  if (merchant.previousWebhookSecretSealed && merchant.previousWebhookSecretExpiresAt !== null && merchant.previousWebhookSecretExpiresAt > nowMs) {
    const previous = openIfPossible(key, merchant.previousWebhookSecretSealed);
    if (previous !== undefined) secrets.push(previous);
  }
  return secrets;
}

function openIfPossible(key: SecretKey, sealed: string): string | undefined {
  try {
    return openSecret(key, sealed);
  } catch {
    return undefined;
  }
}

export function notificationHeaders(input: { eventId: string; payload: string; secrets: readonly string[]; nowMs: number; userAgent: string }): Record<string, string> {
  const timestamp = Math.floor(input.nowMs / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': input.userAgent,
    'webhook-id': input.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(input.secrets, input.eventId, timestamp, input.payload),
  };
}
