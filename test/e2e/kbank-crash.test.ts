// A live gateway killed with SIGKILL while KBank holds its answer, on both stores: the gateway runs
// as a child process (`serve`, GATEWAY_MODE=live) against kbank-sim in this process, and after a
// restart it converges to the bank's truth (docs/connectors/kbank.md "The QR", "Reconciler",
// "Refunds": ambiguous calls are settled by inquiry, never resent).
//   - The first view's create: the customer's GET /transaction/Redirect makes `serve` ask KBank for
//     the QR; KBank applied it and holds the answer; `serve` dies and the GET fails on its socket.
//     After the restart the pending attempt is settled by inquiry and the page shows it: the unseen
//     QR is cancelled at KBank and the page shows one payable QR (the second attempt's); or, if the
//     customer had paid the held QR meanwhile, the payment ends SUCCESS once (one notification, one
//     ledger entry) and the page shows the result, with no second QR.
//   - A refund's void: KBank applied it and holds the answer; the gateway dies mid-request. After
//     the restart the merchant's retry of the same refund finds the void: one void at KBank, one
//     refund in the ledger.
// Live mode wants an https PUBLIC_BASE_URL; the page is requested on the child's own listening
// address (127.0.0.1:<port>), its path and ID as in the redirectUrl the initiation returned.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startKbankSim, type KbankSim } from '../../src/dev/kbank-sim/server.ts';
import { openStoreEngine, type StoreEngine } from '../../src/store/engine.ts';
import { kbankEnvFor } from '../support/connector-harnesses.ts';
import { createMerchant, gatewayEnv, type Creds } from '../support/delivery-process.ts';
import { testDialects } from '../support/dialects.ts';
import { CrashHarness } from '../support/crash-harness.ts';
import { freePort, killLeftoverGateways } from '../support/gateway-process.ts';
import { createTestDatabase } from '../support/test-store.ts';

const TOKEN = 'crash-test-callback-token-0123456789abcdef';
const CREATE = '/v1/qrpayment/request';
const CANCEL = '/v1/qrpayment/cancel';
const VOID = '/v1/qrpayment/void';

/** Bangkok minutes of the day now: the child gateways run on the real clock. */
const bangkokMinute = () => Math.floor(((Date.now() + 7 * 3_600_000) % 86_400_000) / 60_000);
// Voids are same-day and before the cut-off (set to 23:59 here): not in the last minutes of a day.
const nearMidnight = bangkokMinute() >= 23 * 60 + 57 ? 'within minutes of midnight in Bangkok' : false;

for (const { dialect, skip } of await testDialects()) {
  describe(`a live gateway killed while KBank holds its answer [${dialect}]`, { skip: skip || nearMidnight }, () => {
    let sim: KbankSim;
    let database: { databaseUrl: string; drop(): Promise<void> };
    let engine: StoreEngine;
    let creds: Creds;
    let h: CrashHarness;

    before(async () => {
      sim = await startKbankSim({ now: Date.now(), tickingClock: true, voidCutoff: '23:59' });
      database = await createTestDatabase(dialect);
      const port = await freePort();
      const env = gatewayEnv(database.databaseUrl, {
        GATEWAY_MODE: 'live',
        PUBLIC_BASE_URL: 'https://pay.example',
        PORT: String(port),
        OUTBOUND_ALLOW_HTTP: 'true',
        OUTBOUND_ALLOWLIST: '127.0.0.1',
        ...kbankEnvFor(sim, TOKEN),
        TRANSACTION_TTL: '10m',
        // Longer than any test waits: a held answer keeps the request in flight until the kill.
        KBANK_TIMEOUT: '60s',
        KBANK_VOID_CUTOFF: '23:59',
      });
      creds = await createMerchant(env, 'KBank Crash Shop');
      engine = openStoreEngine(database.databaseUrl);
      h = new CrashHarness(env, engine, creds, 'kbank-crash');
      // KBank's callbacks go to whichever `serve` is running on that port.
      sim.setCallbackUrl(sim.credentials.merchantId, `http://127.0.0.1:${port}/processor/kbank/notify/${TOKEN}`);
    });
    afterEach(async () => {
      sim.clearFaults();
      await h?.kill();
      await killLeftoverGateways();
    });
    after(async () => {
      await engine?.close();
      await database?.drop();
      await sim?.close();
    });

    const bankCalls = (path: string, uid?: string) =>
      sim.log().requests.filter((r) => {
        const body = r.body as { partnerTxnUid?: string; origPartnerTxnUid?: string } | null;
        return r.path === path && (uid === undefined || body?.partnerTxnUid === uid || body?.origPartnerTxnUid === uid);
      }).length;
    const recordAtBank = (uid: string) => sim.state().records.find((r) => r.partnerTxnUid === uid)?.status;
    /** The first view with KBank holding the create's answer; `serve` is killed once KBank applied it. */
    const crashDuringCreate = async (redirectId: string) => {
      sim.faults({ endpoint: 'request', fault: 'timeout' });
      await h.crashDuringFirstView(redirectId, 'KBank', () => bankCalls(CREATE));
    };
    const shownQr = (transactionId: string, redirectId: string) =>
      h.shownQr(transactionId, redirectId, (a) => a.state === 'requested', 'the customer can pay');

    test('killed during the create: after the restart the unseen QR is cancelled, the page shows one', async () => {
      await h.start();
      const p = await h.initiate();
      await crashDuringCreate(p.redirectId);
      const [held, ...others] = await h.attempts(p.transactionid);
      assert.deepEqual([held?.attempt, held?.state, others.length], [1, 'pending', 0], 'the crash left it pending');
      assert.equal(recordAtBank(held!.reference), 'REQUESTED', 'KBank created it');

      await h.start();
      const shown = await shownQr(p.transactionid, p.redirectId); // the customer's next view
      assert.equal(shown.attempt, 2, "the page shows the second attempt's QR");
      assert.notEqual(shown.reference, held!.reference);
      assert.deepEqual(
        (await h.attempts(p.transactionid)).map((a) => [a.attempt, a.state]),
        [
          [1, 'cancelled'],
          [2, 'requested'],
        ],
      );
      assert.equal(recordAtBank(held!.reference), 'CANCELLED');
      assert.equal(bankCalls(CANCEL, held!.reference), 1);
      assert.deepEqual([bankCalls(CREATE, held!.reference), bankCalls(CREATE, shown.reference)], [1, 1]);
      const again = await shownQr(p.transactionid, p.redirectId);
      assert.deepEqual(again, shown, 'the same QR on every view');
      assert.equal(bankCalls(CREATE, shown.reference), 1, 'no second create for it');
      assert.equal(sim.pay(held!.reference).ok, false, 'the unseen QR cannot be paid');

      const paid = sim.pay(shown.reference);
      assert.ok(paid.ok);
      await paid.callback;
      const done = await h.until(
        'the payment completing',
        () => h.payment(p.transactionid),
        (s) => s.status === 'SUCCESS',
      );
      assert.deepEqual([done.transitions, done.notifications, done.paymentEntries], [1, 1, 1]);
      await h.shownPaid(p.redirectId);
    });

    test('killed during the create, the held QR paid meanwhile: after the restart SUCCESS once', async () => {
      await h.start();
      const p = await h.initiate();
      await crashDuringCreate(p.redirectId);
      const [held] = await h.attempts(p.transactionid);
      assert.equal(held?.state, 'pending');
      // The customer pays the QR KBank made while no gateway runs; its callback finds nobody.
      const paid = sim.pay(held!.reference, undefined, { callback: 'drop' });
      assert.ok(paid.ok);

      await h.start(); // its reconciler settles the pending attempt
      await h.settledPaidOnce(p.transactionid);
      const creates = bankCalls(CREATE);
      await h.shownPaid(p.redirectId);
      assert.equal(bankCalls(CREATE), creates, 'no second QR');
      assert.equal(bankCalls(CREATE, held!.reference), 1);
      assert.equal(bankCalls(CANCEL, held!.reference), 0);
      const after = await h.payment(p.transactionid);
      assert.deepEqual([after.transitions, after.notifications, after.paymentEntries], [1, 1, 1]);
    });

    test("killed during a refund's void: the merchant's retry finds the void, one refund", async () => {
      await h.start();
      const p = await h.initiate('1000.00');
      const qr = await shownQr(p.transactionid, p.redirectId);
      const paid = sim.pay(qr.reference);
      assert.ok(paid.ok);
      await paid.callback;
      await h.until(
        'the payment completing',
        () => h.payment(p.transactionid),
        (s) => s.status === 'SUCCESS',
      );

      const refundBody = {
        merchantid: creds.merchantid,
        password: creds.password,
        transactionid: p.transactionid,
        bill_amount: '1000.00',
        bill_currencycode: 'THB',
      };
      sim.faults({ endpoint: 'void', fault: 'timeout' });
      const inFlight = h.api('/transaction/refund', refundBody);
      inFlight.catch(() => undefined);
      await h.until(
        'the void reaching KBank',
        () => bankCalls(VOID, qr.reference),
        (n) => n === 1,
      );
      assert.equal(await h.gateway!.stop('SIGKILL'), null);
      h.gateway = undefined;
      await assert.rejects(inFlight, 'the merchant got no answer');
      assert.equal(recordAtBank(qr.reference), 'VOIDED', 'KBank applied the void');
      const killed = await h.payment(p.transactionid);
      assert.deepEqual([killed.refunds, killed.refundedMinor], [0, 0n], 'nothing recorded before the kill');
      assert.deepEqual(
        (await h.attempts(p.transactionid)).map((a) => [a.kind, a.state]),
        [
          ['qr', 'paid'],
          ['void', 'pending'],
        ],
      );

      await h.start();
      const retry = await h.api('/transaction/refund', refundBody);
      assert.equal(retry.status, 200, JSON.stringify(retry.body));
      assert.equal(retry.body.refunded_amount, '1000.00');
      assert.equal(bankCalls(VOID, qr.reference), 1, 'no second void at KBank');
      const after = await h.payment(p.transactionid);
      assert.deepEqual([after.refunds, after.refundedMinor, after.notifications], [1, 1000_0000n, 2]);
      const refundEntries = await engine.db
        .selectFrom('journal_entries')
        .select('id')
        .where('kind', '=', 'refund')
        .where('idempotency_key', '=', `refund:${retry.body.refundid as string}`)
        .execute();
      assert.equal(refundEntries.length, 1);
      assert.deepEqual(
        (await h.attempts(p.transactionid)).map((a) => [a.kind, a.state]),
        [
          ['qr', 'paid'],
          ['void', 'voided'],
        ],
      );
      const again = await h.api('/transaction/refund', refundBody);
      assert.equal(again.body.refundid, retry.body.refundid, 'the same refund again');
      assert.equal(bankCalls(VOID, qr.reference), 1);
    });
  });
}
