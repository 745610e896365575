// Shared by the delivery end-to-end tests: a real notification receiver on 127.0.0.1, an
// in-process gateway with the delivery worker running, an independent Standard Webhooks
// signature check (node:crypto directly, not the project's module), and payment helpers.
import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';
import { createLogger } from '../../src/logger.ts';
import { DeliveryWorker, type DeliveryWorkerOptions } from '../../src/delivery/delivery-worker.ts';
import { OutboxRepo } from '../../src/store/repos/outbox.repo.ts';
import { type OutboxEvent } from '../../src/domain/outbox-event.ts';
import type { Dialect } from '../../src/store/engine.ts';
import { initiationBody, post, startTestGateway, type MerchantCredentials, type TestGateway } from './test-gateway.ts';

export type Received = { path: string; headers: http.IncomingHttpHeaders; body: Buffer; at: number; open: boolean };

/** How the receiver answers the n-th request (from 1) on a path. */
export type Behaviour = (res: http.ServerResponse, req: http.IncomingMessage, n: number) => void;

export const answer =
  (status: number, headers: Record<string, string> = {}, body = status < 300 ? 'ok' : `status ${status}`): Behaviour =>
  (res) => {
    res.writeHead(status, { 'content-type': 'text/plain', ...headers });
    res.end(body);
  };
/** Never answers (the gateway's timeout must end the attempt). */
export const hang: Behaviour = () => {};
/** Drops the connection without an answer. */
export const reset: Behaviour = (_res, req) => req.socket.destroy();
/** Answers after `ms` (a slow merchant endpoint). */
export const slow =
  (ms: number, then: Behaviour = answer(200)): Behaviour =>
  (res, req, n) => {
    const timer = setTimeout(() => then(res, req, n), ms);
    res.on('close', () => clearTimeout(timer));
  };
/** The n-th request gets behaviours[n-1]; later ones get the last. */
export const sequence =
  (...behaviours: Behaviour[]): Behaviour =>
  (res, req, n) =>
    behaviours[Math.min(n, behaviours.length) - 1]!(res, req, n);

export class Receiver {
  readonly requests: Received[] = [];
  readonly #server: http.Server;
  readonly #routes = new Map<string, Behaviour>();
  readonly #counts = new Map<string, number>();
  readonly #sockets = new Set<Socket>();
  readonly #waiters = new Set<() => void>();
  url = '';

  private constructor() {
    this.#server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '').split('?')[0]!;
        const n = (this.#counts.get(path) ?? 0) + 1;
        this.#counts.set(path, n);
        const record: Received = {
          path,
          headers: req.headers,
          body: Buffer.concat(chunks),
          at: Date.now(),
          open: true,
        };
        this.requests.push(record);
        res.on('close', () => {
          record.open = false;
          this.#notify();
        });
        this.#notify();
        (this.#routes.get(path) ?? answer(200))(res, req, n);
      });
    });
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  static async start(): Promise<Receiver> {
    const receiver = new Receiver();
    await new Promise<void>((resolve) => receiver.#server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.#server.address() as AddressInfo).port}`;
    return receiver;
  }

  on(path: string, behaviour: Behaviour): string {
    this.#routes.set(path, behaviour);
    return `${this.url}${path}`;
  }

  to(path: string): Received[] {
    return this.requests.filter((r) => r.path === path);
  }

  #notify(): void {
    for (const waiter of this.#waiters) waiter();
  }

  /**
   * Resolves when `predicate` holds; rejects after `timeoutMs` so a broken gateway fails the test instead of hanging
   * it.
   */
  waitFor(predicate: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!predicate()) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`timed out waiting for ${what} (${this.requests.length} requests received)`));
      }, timeoutMs);
      this.#waiters.add(check);
    });
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Standard Webhooks v1 signature computed here, independently of src/domain/webhook-signature.ts. */
export function independentSignature(secret: string, id: string, timestamp: string, body: Buffer): string {
  assertSecretShape(secret);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
}

function assertSecretShape(secret: string): void {
  if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret)) throw new Error(`not a whsec_ secret: ${secret.slice(0, 8)}…`);
}

/** The signatures in a webhook-signature header. */
export function signaturesOf(received: Received): string[] {
  return String(received.headers['webhook-signature'] ?? '')
    .split(' ')
    .filter(Boolean);
}

export type DeliveryGateway = {
  gw: TestGateway;
  worker: DeliveryWorker;
  outbox: OutboxRepo;
  /** Moves the gateway's clock (which otherwise runs with real time). */
  advance(ms: number): void;
  close(): Promise<void>;
};

/** Short ladders and timeouts so retries happen in milliseconds. */
export const FAST_DELIVERY_ENV = {
  RETRY_LADDER: '0,20ms,20ms',
  DELIVERY_TIMEOUT: '400ms',
  DELIVERY_LEASE: '5s',
  DELIVERY_POLL_INTERVAL: '50ms',
  DELIVERY_JITTER_PERCENT: '0',
};

export async function startDeliveryGateway(
  dialect: Dialect,
  env: Record<string, string> = {},
  options: DeliveryWorkerOptions = {},
): Promise<DeliveryGateway> {
  const gw = await startTestGateway(dialect, { ...FAST_DELIVERY_ENV, ...env });
  // The test gateway's clock is frozen by default; retries on a ladder need it to move.
  let offset = 0;
  Object.defineProperty(gw.clock, 'now', {
    get: () => Date.now() + offset,
    set: (value: number) => {
      offset = value - Date.now();
    },
    configurable: true,
  });
  const worker = new DeliveryWorker(gw.services, createLogger('warn', gw.logs), options);
  worker.start();
  return {
    gw,
    worker,
    outbox: new OutboxRepo(gw.testStore.db, gw.services.store.kind),
    advance(ms) {
      offset += ms;
    },
    async close() {
      await worker.stop();
      await gw.close();
    },
  };
}

export type Payment = { transactionid: string; token: string; trackid: string };

let trackSeq = 0;

/** Initiates a payment through the HTTP API and completes it through the sandbox route. */
export async function completePayment(
  gw: TestGateway,
  creds: MerchantCredentials,
  serverUrl: string,
  options: { amount?: string; outcome?: string } = {},
): Promise<Payment> {
  const trackid = `dlv-${process.pid}-${++trackSeq}`;
  const init = await post(
    gw,
    '/transaction/s2s',
    initiationBody(creds, { trackid, serverUrl, bill_amount: options.amount ?? '1000' }),
  );
  if (init.status !== 200) throw new Error(`initiation failed: ${init.raw}`);
  const done = await post(gw, '/sandbox/transaction/complete', {
    merchantid: creds.merchantid,
    password: creds.password,
    transactionid: init.body.transactionid,
    ...(options.outcome && { outcome: options.outcome }),
  });
  if (done.status !== 200) throw new Error(`completion failed: ${done.raw}`);
  return { transactionid: init.body.transactionid, token: init.body.token, trackid };
}

export async function eventOf(outbox: OutboxRepo, transactionId: string): Promise<OutboxEvent> {
  const event = await outbox.findByTransaction(transactionId);
  if (!event) throw new Error(`no outbox event for ${transactionId}`);
  return event;
}
