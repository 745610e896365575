// Verifying payment notifications from the gateway — for merchants.
//
// Every notification the gateway POSTs to your serverUrl carries three
// headers (the Standard Webhooks scheme, https://www.standardwebhooks.com/):
//
//   webhook-id         the event id; identical on every retry, so use it to
//                      ignore duplicates
//   webhook-timestamp  Unix seconds when this attempt was sent
//   webhook-signature  `v1,<base64 HMAC-SHA256>`; during a secret rotation
//                      there are several, separated by spaces
//
// Usage (any framework — what matters is the RAW body, byte for byte):
//
//   import { verifyNotification } from 'thaiqr-gateway';
//
//   const result = verifyNotification(process.env.WEBHOOK_SECRET, req.headers, rawBody);
//   if (!result.ok) {
//     console.warn('rejected notification:', result.reason);
//     return reply.code(401).send();
//   }
//   const event = JSON.parse(rawBody);  // only now trust the content
//
// Pitfalls:
//   - Verify the body exactly as received. Re-serialising parsed JSON changes
//     whitespace or key order and the signature will not match.
//   - Keep your server clock in sync (NTP). Notifications older or newer than
//     the tolerance (default 5 minutes) are rejected to stop replays.
//   - The secret is the whole `whsec_…` string from the dashboard.
import { verifyWebhook } from './domain/webhook-signature.ts';
import type { VerifyResult, WebhookHeaders } from './domain/webhook-signature.ts';

export type { VerifyResult, WebhookHeaders };

export type VerifyNotificationOptions = {
  /** Accepted clock difference in seconds, both directions. Default 300. */
  toleranceSeconds?: number;
};

/**
 * Returns `{ ok: true }` when the notification was signed with `secret` and
 * is fresh; otherwise `{ ok: false, reason }` — log the reason, answer 4xx,
 * and do not act on the body.
 */
export function verifyNotification(
  secret: string,
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  options: VerifyNotificationOptions = {},
): VerifyResult {
  const opts = options.toleranceSeconds === undefined ? {} : { toleranceSeconds: options.toleranceSeconds };
  return verifyWebhook(secret, headers, rawBody, opts);
}
