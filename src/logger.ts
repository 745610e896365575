// JSON logs (pino). Secrets and the payer's account number are redacted wherever they
// appear; request bodies are never logged, and URLs are logged without their query string
// (the hosted page's ID is a bearer capability).
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.ts';

export const REDACT_PATHS = [
  'password',
  'webhook_secret',
  'payer_account_no',
  '*.password',
  '*.webhook_secret',
  '*.payer_account_no',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["webhook-signature"]',
  'secretKey',
  'config.secretKey',
];

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'thaiqr-gateway' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: {
        req: (req: { id?: string; method?: string; url?: string; ip?: string }) => ({
          id: req.id,
          method: req.method,
          path: (req.url ?? '').split('?')[0],
          ip: req.ip,
        }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}
