// The development webhook inbox behind `gateway listen`: a local HTTP receiver that verifies
// each notification with the merchant's webhook secrets (as a merchant's server would), reports
// it, answers 2xx — or relays the answer of `forwardTo`, like `stripe listen --forward-to`.
// A notification that does not verify is answered 401, so the gateway retries it as it would
// against a real merchant.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyNotification } from '../../packages/client/src/webhooks.ts';

const MAX_BODY_BYTES = 1024 * 1024;
const FORWARD_TIMEOUT_MS = 10_000;
const RELAYED_HEADERS = ['content-type', 'user-agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];

export type InboxEntry = {
  received_at: string;
  verified: boolean;
  reason: string | null;
  webhook_id: string | null;
  merchantid: string | null;
  event: Record<string, unknown> | null;
  forwarded: { url: string; status: number | null; error: string | null } | null;
  answered: number;
};

export type InboxOptions = {
  host: string;
  port: number;
  /** Only this merchant's notifications are accepted (others: 401); any merchant in the store otherwise. */
  merchantId?: string;
  /** The secrets a merchant's notifications are signed with now; [] for an unknown merchant. */
  secretsFor(merchantId: string): Promise<string[]>;
  forwardTo?: string;
  onEntry(entry: InboxEntry): void;
};

export type Inbox = { url: string; close(): Promise<void> };

function readBody(req: http.IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseObject(raw: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

async function forward(
  url: string,
  req: http.IncomingMessage,
  raw: Buffer,
): Promise<{ status: number | null; body: string; error: string | null }> {
  const headers: Record<string, string> = {};
  for (const name of RELAYED_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: raw,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    return { status: response.status, body: (await response.text()).slice(0, 2048), error: null };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { status: null, body: '', error: cause ?? (error instanceof Error ? error.message : String(error)) };
  }
}

export async function startInbox(options: InboxOptions): Promise<Inbox> {
  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST', 'content-type': 'text/plain' }).end('POST notifications here\n');
      return;
    }
    const raw = await readBody(req);
    if (raw === undefined) {
      res.writeHead(413, { connection: 'close' }).end();
      return;
    }
    const event = parseObject(raw);
    const merchantid = typeof event?.merchantid === 'string' ? event.merchantid : null;
    const webhookId = typeof req.headers['webhook-id'] === 'string' ? req.headers['webhook-id'] : null;
    let reason: string | null = null;
    if (!merchantid) reason = 'the body names no merchantid';
    else if (options.merchantId !== undefined && merchantid !== options.merchantId)
      reason = `for merchant ${merchantid}, not ${options.merchantId}`;
    else {
      const secrets = await options.secretsFor(merchantid);
      if (secrets.length === 0) reason = `unknown merchant ${merchantid}`;
      else {
        const check = verifyNotification(secrets, req.headers, raw);
        if (!check.ok) reason = check.reason;
      }
    }
    const entry: InboxEntry = {
      received_at: new Date().toISOString(),
      verified: reason === null,
      reason,
      webhook_id: webhookId,
      merchantid,
      event,
      forwarded: null,
      answered: 200,
    };
    let answerBody = 'ok\n';
    if (reason !== null) {
      entry.answered = 401;
      answerBody = `rejected: ${reason}\n`;
    } else if (options.forwardTo) {
      const result = await forward(options.forwardTo, req, raw);
      entry.forwarded = { url: options.forwardTo, status: result.status, error: result.error };
      // Relay the forward's answer so the gateway retries exactly when the merchant's code failed.
      entry.answered = result.status ?? 502;
      answerBody = result.status === null ? `forward failed: ${result.error}\n` : result.body;
    }
    res.writeHead(entry.answered, { 'content-type': 'text/plain; charset=utf-8' }).end(answerBody);
    options.onEntry(entry);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end();
      process.stderr.write(`inbox error: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** One line for people: time, outcome, amount, references, and what was answered. */
export function formatEntry(entry: InboxEntry): string {
  const time = entry.received_at.slice(11, 19);
  if (!entry.verified)
    return `${time}  ✗ REJECTED  ${entry.reason}  webhook-id ${entry.webhook_id ?? '-'}  → ${entry.answered}`;
  const e = entry.event ?? {};
  const text = (key: string) => (typeof e[key] === 'string' ? (e[key] as string) : '-');
  const what = e.event_type === 'refund' ? 'refund' : 'payment';
  const outcome = text('error_code_tag') !== '-' ? `${text('result')} (${text('error_code_tag')})` : text('result');
  const forwarded = entry.forwarded ? `  forwarded → ${entry.forwarded.status ?? entry.forwarded.error}` : '';
  return (
    `${time}  ✓ ${what} ${outcome}  ${text('bill_amount')} ${text('bill_currencycode')}  ` +
    `trackid ${text('trackid')}  transaction ${text('transactionid')}  webhook-id ${entry.webhook_id}  ` +
    `(signature verified)${forwarded}  → ${entry.answered}`
  );
}
