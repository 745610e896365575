// A live gateway taking bank payments, for the live-mode tests: the gateway as main.ts builds it
// (test-gateway.ts) with GATEWAY_MODE=live and a bank connector against its local simulator on
// 127.0.0.1, both on one clock the test moves: KBank against kbank-sim (startLiveGateway;
// docs/connectors/kbank.md "Settings", src/dev/kbank-sim/) or SCB against scb-sim
// (startLiveScbGateway; docs/connectors/scb.md "Settings", src/dev/scb-sim/). The reconciler runs;
// `reconcile()` makes every open attempt due and waits for the round, so a test needs no
// wall-clock waits. Merchant notifications may go to 127.0.0.1 (the test's receiver), which live
// mode otherwise refuses.
import { ExpirySweeper } from '../../src/app/expiry-sweeper.ts';
import type { ProcessorAttempt } from '../../src/domain/processor-attempt.ts';
import type { TransactionRecord } from '../../src/domain/transaction.ts';
import { startKbankSim, type KbankSim, type KbankSimOptions } from '../../src/dev/kbank-sim/server.ts';
import { startScbSim, type PayOptions, type ScbSim, type ScbSimOptions } from '../../src/dev/scb-sim/server.ts';
import type { Dialect } from '../../src/store/engine.ts';
import { kbankEnvFor, scbEnvFor } from './connector-harnesses.ts';
import { startPayment, type Started } from './lifecycle.ts';
import { addMerchant, startTestGateway, type MerchantCredentials, type TestGateway } from './test-gateway.ts';

/** 10:00 on Monday 5 January 2026 in Bangkok: inside every window (void cut-off, settlement). */
export const LIVE_DAY = Date.parse('2026-01-05T10:00:00+07:00');
export const CALLBACK_PATH_TOKEN = 'live-test-callback-token-0123456789abcdef';
export const CONFIRM_PATH_TOKEN = 'live-test-confirm-token-0123456789abcdef';

/** What every live gateway offers, whichever bank it runs on. */
export type LiveBase = TestGateway & {
  creds: MerchantCredentials;
  /** Moves the gateway's and the bank's clocks together. */
  advance(ms: number): void;
  /** Starts a payment through POST /transaction/s2s (THB, 1000.00 unless overridden). */
  start(overrides?: Record<string, unknown>): Promise<Started>;
  /** What the hosted page's first view does: the bank's QR, created once. */
  showQr(p: Started): Promise<ProcessorAttempt>;
  /** A payment whose QR the customer saw (unpaid), and that QR's bank reference. */
  startShown(overrides?: Record<string, unknown>): Promise<{ p: Started; uid: string }>;
  transaction(p: Started): Promise<TransactionRecord>;
  /** The payment's attempts at the bank, oldest first. */
  attempts(p: Started): Promise<ProcessorAttempt[]>;
  /** Makes every open attempt due now and waits for the reconciler's round. */
  reconcile(): Promise<void>;
};

export type LiveGateway = LiveBase & {
  sim: KbankSim;
  /** The customer pays the QR at the bank; resolves with the callback KBank would send (not sent). */
  pay(reference: string, amount?: string): Promise<string>;
  /** POSTs a body to KBank's callback route, as KBank would (path token unless given). */
  callback(body: string, options?: { token?: string; contentType?: string }): Promise<{ status: number; body: string }>;
  /** Requests that reached the bank at `path` (e.g. '/v1/qrpayment/void'), naming `uid` when given. */
  bankCalls(path: string, uid?: string): number;
};

export type LiveGatewayOptions = { sim?: KbankSimOptions; env?: Record<string, string> };

/** The live gateway's settings around a bank's own. */
function liveEnv(bank: Record<string, string>, extra: Record<string, string> | undefined): Record<string, string> {
  return {
    GATEWAY_MODE: 'live',
    PUBLIC_BASE_URL: 'https://pay.example',
    OUTBOUND_ALLOW_HTTP: 'true',
    OUTBOUND_ALLOWLIST: '127.0.0.1',
    ...bank,
    TRANSACTION_TTL: '10m',
    ...extra,
  };
}

export async function startLiveGateway(dialect: Dialect, options: LiveGatewayOptions = {}): Promise<LiveGateway> {
  const sim = await startKbankSim({ now: LIVE_DAY, ...options.sim });
  let gw: TestGateway;
  try {
    gw = await startTestGateway(
      dialect,
      liveEnv({ ...kbankEnvFor(sim, CALLBACK_PATH_TOKEN), KBANK_TIMEOUT: '1s' }, options.env),
    );
  } catch (error) {
    await sim.close();
    throw error;
  }
  const base = await liveBase(gw, sim.clock().unixMs, (ms) => sim.advance(ms));
  return {
    ...base,
    sim,
    async pay(reference, amount) {
      const paid = sim.pay(reference, amount);
      if (!paid.ok) throw new Error(`kbank-sim refused to pay ${reference}: ${paid.reason}`);
      return (await paid.callback).body;
    },
    async callback(body, { token = CALLBACK_PATH_TOKEN, contentType = 'application/json' } = {}) {
      const res = await gw.app.inject({
        method: 'POST',
        url: `/processor/kbank/notify/${token}`,
        headers: { 'content-type': contentType },
        payload: body,
      });
      return { status: res.statusCode, body: res.body };
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
      await base.close();
      await sim.close();
    },
  };
}

export type LiveScbGateway = LiveBase & {
  sim: ScbSim;
  /**
   * The customer pays the QR at the bank (its ref1); resolves with the confirmation SCB would send
   * (not sent: no URL is registered unless the test registers one).
   */
  pay(reference: string, options?: Omit<PayOptions, 'ref1' | 'qrRawData'>): Promise<string>;
  /** POSTs a body to SCB's confirmation route, as SCB would (path token unless given). */
  confirm(body: string, options?: { token?: string; contentType?: string }): Promise<{ status: number; body: string }>;
  /** Requests that reached the bank at a path ending in `suffix` (e.g. '/qrcode/create'), naming `ref1` when given. */
  bankCalls(suffix: string, ref1?: string): number;
};

export type LiveScbGatewayOptions = { sim?: ScbSimOptions; env?: Record<string, string> };

/** A live gateway on SCB (PROCESSOR_CONNECTOR=scb, SCB_QR=api unless `env` says local) against scb-sim. */
export async function startLiveScbGateway(
  dialect: Dialect,
  options: LiveScbGatewayOptions = {},
): Promise<LiveScbGateway> {
  const sim = await startScbSim({ now: LIVE_DAY, ...options.sim });
  let gw: TestGateway;
  try {
    gw = await startTestGateway(
      dialect,
      liveEnv({ ...scbEnvFor(sim, CONFIRM_PATH_TOKEN), SCB_QR_TTL: '10m', SCB_TIMEOUT: '1s' }, options.env),
    );
  } catch (error) {
    await sim.close();
    throw error;
  }
  const base = await liveBase(gw, sim.clock().unixMs, (ms) => void sim.advance(ms));
  return {
    ...base,
    sim,
    async pay(reference, payOptions = {}) {
      const paid = sim.pay({ ...payOptions, ref1: reference });
      if (!paid.ok) throw new Error(`scb-sim refused to pay ${reference}: ${paid.reason}`);
      await paid.confirmation;
      return JSON.stringify(paid.record);
    },
    async confirm(body, { token = CONFIRM_PATH_TOKEN, contentType = 'application/json' } = {}) {
      const res = await gw.app.inject({
        method: 'POST',
        url: `/processor/scb/confirm/${token}`,
        headers: { 'content-type': contentType },
        payload: body,
      });
      return { status: res.statusCode, body: res.body };
    },
    bankCalls(suffix, ref1) {
      return sim.log().requests.filter((r) => {
        if (!r.path.endsWith(suffix)) return false;
        return ref1 === undefined || (r.body as { ref1?: string } | null)?.ref1 === ref1;
      }).length;
    },
    async close() {
      await base.close();
      await sim.close();
    },
  };
}

/** The parts every live gateway shares, on the bank's clock (`advanceBank` moves the bank's with ours). */
async function liveBase(gw: TestGateway, bankNow: number, advanceBank: (ms: number) => void): Promise<LiveBase> {
  gw.clock.now = bankNow;
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
    creds,
    advance(ms) {
      gw.clock.now += ms;
      advanceBank(ms);
    },
    start,
    showQr,
    async startShown(overrides) {
      const p = await start(overrides);
      const attempt = await showQr(p);
      if (attempt.state !== 'requested') throw new Error(`the QR of ${p.transactionid} is ${attempt.state}`);
      return { p, uid: attempt.reference };
    },
    transaction,
    attempts: qrAttempts,
    async reconcile() {
      for (const a of await store.processorAttempts.inStates(['pending', 'requested', 'not_found'], 1000)) {
        if (a.nextCheckAt !== null) await store.processorAttempts.update(a.reference, { nextCheckAt: gw.clock.now });
      }
      await processor.reconciler.wake();
    },
    async close() {
      await processor.reconciler.stop();
      await gw.close();
    },
  };
}

/** The expiry sweeper as `serve` runs it (expiry-sweeper.ts expirySweeperWorker), one pass at a time. */
export function expirySweeperOf(gw: LiveBase): ExpirySweeper {
  const s = gw.services;
  return new ExpirySweeper({
    transactions: s.transactions,
    expire: (id) => s.processor.end.expire(id),
    now: s.now,
    intervalMs: 1000,
  });
}
