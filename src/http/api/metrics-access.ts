// Who may read /metrics: anyone who reaches it, or — with METRICS_TOKEN set — only a scraper
// sending `Authorization: Bearer <token>`. Compared in constant time (over digests, so the
// lengths do not leak either).
import { createHash, timingSafeEqual } from 'node:crypto';
import { GatewayError } from '../../domain/errors.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();

export function metricsAccessError(
  token: string | undefined,
  authorization: string | undefined,
): GatewayError | undefined {
  if (token === undefined) return undefined;
  const match = /^Bearer (.+)$/i.exec(authorization ?? '');
  if (match && timingSafeEqual(digest(match[1]!), digest(token))) return undefined;
  return new GatewayError(
    'INVALID_CREDENTIALS',
    'The metrics token is missing or wrong; send the header Authorization: Bearer <METRICS_TOKEN>.',
  );
}
