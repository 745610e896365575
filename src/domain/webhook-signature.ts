// Standard Webhooks signing (https://www.standardwebhooks.com/). The scheme itself — secret
// parsing, the HMAC, verification — lives once, in the merchant client package
// (packages/client/src/webhooks.ts), so what the gateway signs and what merchants verify cannot
// drift apart. Following the spec lets merchants verify with any Standard Webhooks library too.
import { randomBytes } from 'node:crypto';
import { verifyNotification, webhookKey, webhookSignature } from '../../packages/client/src/webhooks.ts';

export type { VerifyOptions, VerifyResult, WebhookHeaders } from '../../packages/client/src/webhooks.ts';
/** Verification, for the gateway's own tools (`listen`) and tests: the client package's. */
export const verifyWebhook = verifyNotification;

const SECRET_PREFIX = 'whsec_';

/** A fresh secret: `whsec_` + base64 of 32 random bytes (256-bit HMAC key). */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * The `webhook-signature` header value: one `v1,<sig>` per secret,
 * space-separated, so a merchant holding either the old or the new secret
 * keeps verifying while a rotation is in progress.
 */
export function signWebhook(secrets: readonly string[], id: string, timestampSeconds: number, rawBody: string): string {
  if (secrets.length === 0) throw new Error('signWebhook needs at least one secret');
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error('timestampSeconds must be a non-negative integer (Unix seconds)');
  }
  return secrets
    .map((secret) => {
      const key = webhookKey(secret);
      if (!key) throw new Error('malformed webhook secret: expected whsec_<base64>');
      return `v1,${webhookSignature(key, id, String(timestampSeconds), rawBody)}`;
    })
    .join(' ');
}
