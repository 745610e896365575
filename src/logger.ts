// JSON logs (pino). Secrets and the payer's account number are redacted wherever they
// appear; request bodies are never logged, and URLs are logged without their query string
// (the hosted page's ID is a bearer capability) and without a bank callback's path token.
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
  // KBank (docs/connectors/kbank.md): the partner secret travels in every request body, the access
  // token and the consumer secret in the Authorization header.
  'partnerSecret',
  '*.partnerSecret',
  'access_token',
  '*.access_token',
  'consumerSecret',
  '*.consumerSecret',
  'consumer_secret',
  '*.consumer_secret',
  'callbackPathToken',
  '*.callbackPathToken',
  'config.kbank.partnerSecret',
  'config.kbank.consumerSecret',
  'config.kbank.callbackPathToken',
  // SCB (docs/connectors/scb.md): the API secret travels in the token call's body, the token in the
  // Authorization header.
  'applicationSecret',
  '*.applicationSecret',
  'accessToken',
  '*.accessToken',
  'apiSecret',
  '*.apiSecret',
  'confirmPathToken',
  '*.confirmPathToken',
  'config.scb.apiSecret',
  'config.scb.confirmPathToken',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
];

/**
 * A bank callback's last path segment is its secret (KBANK_CALLBACK_PATH_TOKEN, SCB_CONFIRM_PATH_TOKEN):
 * never logged.
 */
function loggedPath(url: string): string {
  return url.split('?')[0]!.replace(/^(\/processor\/[^/]+\/(?:notify|confirm)\/)[^/]+/, '$1[redacted]');
}

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
          path: loggedPath(req.url ?? ''),
          ip: req.ip,
        }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}
