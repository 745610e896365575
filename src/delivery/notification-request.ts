// The headers of one notification attempt (docs/notifications.md "The request"): JSON, our
// User-Agent, and the Standard Webhooks trio. The body is the stored payload, untouched, so every
// attempt sends the same bytes; only webhook-timestamp and the signature over it change between
// attempts.
import { signWebhook } from '../domain/webhook-signature.ts';

export function notificationHeaders(input: {
  eventId: string;
  payload: string;
  secrets: readonly string[];
  nowMs: number;
  userAgent: string;
}): Record<string, string> {
  const timestamp = Math.floor(input.nowMs / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': input.userAgent,
    'webhook-id': input.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(input.secrets, input.eventId, timestamp, input.payload),
  };
}
