// A live gateway taking KBank payments, for the live-mode tests: the gateway as main.ts builds it
// (test-gateway.ts) with GATEWAY_MODE=live and the KBank connector (docs/connectors/kbank.md
// "Settings") against kbank-sim on 127.0.0.1 (src/dev/kbank-sim/), both on one clock the test
// moves. The reconciler runs; `reconcile()` makes every open attempt due and waits for the round,
// so a test needs no wall-clock waits. Merchant notifications may go to 127.0.0.1 (the test's
// receiver), which live mode otherwise refuses.
import type { ProcessorAttempt } from '../../src/domain/processor-attempt.ts';
import type { TransactionRecord } from '../../src/domain/transaction.ts';
import { startKbankSim, type KbankSim, type KbankSimOptions } from '../../src/dev/kbank-sim/server.ts';
import type { Dialect } from '../../src/store/engine.ts';
import { kbankEnvFor } from './connector-harnesses.ts';
import { startPayment, type Started } from './lifecycle.ts';
import { addMerchant, startTestGateway, type MerchantCredentials, type TestGateway } from './test-gateway.ts';

/** 10:00 on Monday 5 January 2026 in Bangkok: inside every window (void cut-off, settlement). */
export const LIVE_DAY = Date.parse('2026-01-05T10:00:00+07:00');
export const CALLBACK_PATH_TOKEN = 'live-test-callback-token-0123456789abcdef';

export type LiveGateway = TestGateway & {
  sim: KbankSim;
  creds: MerchantCredentials;
  /** Moves the gateway's and the bank's clocks together. */
  advance(ms: number): void;
  /** Starts a payment through POST /transaction/s2s (THB, 1000.00 unless overridden). */
  start(overrides?: Record<string, unknown>): Promise<Started>;
  /** What the hosted page's first view does: the bank's QR, created once. */
  showQr(p: Started): Promise<ProcessorAttempt>;
  /** A payment whose QR the customer saw (unpaid), and that QR's bank reference. */
  startShown(overrides?: Record<string, unknown>): Promise<{ p: Started; uid: string }>;
  /** The customer pays the QR at the bank; resolves with the callback KBank would send (not sent). */
  pay(reference: string, amount?: string): Promise<string>;
  transaction(p: Started): Promise<TransactionRecord>;
  /** The payment's attempts at the bank, oldest first. */
  attempts(p: Started): Promise<ProcessorAttempt[]>;
  /** POSTs a body to KBank's callback route, as KBank would (path token unless given). */
  callback(body: string, options?: { token?: string; contentType?: string }): Promise<{ status: number; body: string }>;
  /** Makes every open attempt due now and waits for the reconciler's round. */
  reconcile(): Promise<void>;
  /** Requests that reached the bank at `path` (e.g. '/v1/qrpayment/void'), naming `uid` when given. */
  bankCalls(path: string, uid?: string): number;
};

export type LiveGatewayOptions = { sim?: KbankSimOptions; env?: Record<string, string> };

export async function startLiveGateway(dialect: Dialect, options: LiveGatewayOptions = {}): Promise<LiveGateway> {
  const sim = await startKbankSim({ now: LIVE_DAY, ...options.sim });
  let gw: TestGateway;
  try {
    gw = await startTestGateway(dialect, {
      GATEWAY_MODE: 'live',
      PUBLIC_BASE_URL: 'https://pay.example',
      OUTBOUND_ALLOW_HTTP: 'true',
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      ...kbankEnvFor(sim, CALLBACK_PATH_TOKEN),
      TRANSACTION_TTL: '10m',
      KBANK_TIMEOUT: '1s',
      ...options.env,
    });
  } catch (error) {
    await sim.close();
    throw error;
  }
  gw.clock.now = sim.clock().unixMs;
  const creds = await addMerchant(gw);
  const { processor, store } = gw.services;
  processor.reconciler.start();
  const transaction = async (p: Started) =>
    (await gw.services.transactions.findById(creds.merchantid, p.transactionid))!;
  const qrAttempts = async (p: Started) => await store.processorAttempts.forTransaction(p.transactionid);
  const start = (overrides: Record<string, unknown> = {}) =>
    startPayment(gw, creds, { bill_amount: '1000.00', serverUrl: 'https://merchant.example/notify', ...overrides });
  const showQr = async (p: Started) => {
    await processor.paymentQr.ensure(await transaction(p));
    const attempt = await store.processorAttempts.latest(p.transactionid, 'qr');
    if (!attempt) throw new Error(`no QR attempt for ${p.transactionid}`);
    return attempt;
  };

  return {
    ...gw,
    sim,
    creds,
    advance(ms) {
      gw.clock.now += ms;
      sim.advance(ms);
    },
    start,
    showQr,
    async startShown(overrides) {
      const p = await start(overrides);
      const attempt = await showQr(p);
      if (attempt.state !== 'requested') throw new Error(`the QR of ${p.transactionid} is ${attempt.state}`);
      return { p, uid: attempt.reference };
    },
    async pay(reference, amount) {
      const paid = sim.pay(reference, amount);
      if (!paid.ok) throw new Error(`kbank-sim refused to pay ${reference}: ${paid.reason}`);
      return (await paid.callback).body;
    },
    transaction,
    attempts: qrAttempts,
    async callback(body, { token = CALLBACK_PATH_TOKEN, contentType = 'application/json' } = {}) {
      const res = await gw.app.inject({
        method: 'POST',
        url: `/processor/kbank/notify/${token}`,
        headers: { 'content-type': contentType },
        payload: body,
      });
      return { status: res.statusCode, body: res.body };
    },
    async reconcile() {
      for (const a of await store.processorAttempts.inStates(['pending', 'requested', 'not_found'], 1000)) {
        if (a.nextCheckAt !== null) await store.processorAttempts.update(a.reference, { nextCheckAt: gw.clock.now });
      }
      await processor.reconciler.wake();
    },
    bankCalls(path, uid) {
      return sim.log().requests.filter((r) => {
        if (r.path !== path) return false;
        if (uid === undefined) return true;
        const body = r.body as { partnerTxnUid?: string; origPartnerTxnUid?: string } | null;
        return body?.partnerTxnUid === uid || body?.origPartnerTxnUid === uid;
      }).length;
    },
    async close() {
      await processor.reconciler.stop();
      await gw.close();
      await sim.close();
    },
  };
}
