// A live SCB gateway killed with SIGKILL while SCB holds its answer, on both stores: the gateway
// runs as a child process (`serve`, GATEWAY_MODE=live, PROCESSOR_CONNECTOR=scb) against scb-sim in
// this process, and after a restart it converges to the bank's truth (docs/connectors/scb.md "The
// QR", "Reconciler": an ambiguous create is settled by inquiry, never resent). It mirrors
// test/e2e/kbank-crash.test.ts where SCB differs: SCB cannot cancel the QR it made, and has no void.
//   - The first view's create: the customer's GET /transaction/Redirect makes `serve` ask SCB for
//     the QR; SCB applied it and holds the answer; `serve` dies and the GET fails on its socket.
//     After the restart the pending attempt is settled by inquiry: nothing was paid on it, so it is
//     kept as requested without a QR (nobody saw it), checked until SCB's expiry, and the page shows
//     a second QR, the only one ever shown; or, if the customer had paid the held QR meanwhile, the
//     payment ends SUCCESS once (one notification, one ledger entry) and the page shows the result,
//     with no second QR.
// Live mode wants an https PUBLIC_BASE_URL; the page is requested on the child's own listening
// address (127.0.0.1:<port>), its path and ID as in the redirectUrl the initiation returned.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startScbSim, type ScbSim } from '../../src/dev/scb-sim/server.ts';
import { openStoreEngine, type StoreEngine } from '../../src/store/engine.ts';
import { scbEnvFor } from '../support/connector-harnesses.ts';
import { createMerchant, gatewayEnv, type Creds } from '../support/delivery-process.ts';
import { testDialects } from '../support/dialects.ts';
import { CrashHarness } from '../support/crash-harness.ts';
import { freePort, killLeftoverGateways } from '../support/gateway-process.ts';
import { createTestDatabase } from '../support/test-store.ts';

const TOKEN = 'crash-test-confirm-token-0123456789abcdef';
const CREATE = '/v2/payment/qrcode/create';

for (const { dialect, skip } of await testDialects()) {
  describe(`a live SCB gateway killed while SCB holds its answer [${dialect}]`, { skip }, () => {
    let sim: ScbSim;
    let database: { databaseUrl: string; drop(): Promise<void> };
    let engine: StoreEngine;
    let creds: Creds;
    let h: CrashHarness;

    before(async () => {
      sim = await startScbSim({ now: Date.now(), tickingClock: true });
      database = await createTestDatabase(dialect);
      const port = await freePort();
      const env = gatewayEnv(database.databaseUrl, {
        GATEWAY_MODE: 'live',
        PUBLIC_BASE_URL: 'https://pay.example',
        PORT: String(port),
        OUTBOUND_ALLOW_HTTP: 'true',
        OUTBOUND_ALLOWLIST: '127.0.0.1',
        ...scbEnvFor(sim, TOKEN),
        TRANSACTION_TTL: '10m',
        SCB_QR_TTL: '10m',
        // Longer than any test waits: a held answer keeps the request in flight until the kill.
        SCB_TIMEOUT: '60s',
      });
      creds = await createMerchant(env, 'SCB Crash Shop');
      engine = openStoreEngine(database.databaseUrl);
      h = new CrashHarness(env, engine, creds, 'scb-crash');
      // SCB's confirmations go to whichever `serve` is running on that port.
      sim.setConfirmUrl(`http://127.0.0.1:${port}/processor/scb/confirm/${TOKEN}`);
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

    const bankCalls = (path: string, ref1?: string) =>
      sim.log().requests.filter((r) => {
        const body = r.body as { ref1?: string } | null;
        return r.path.endsWith(path) && (ref1 === undefined || body?.ref1 === ref1);
      }).length;
    const qrsAtBank = (ref1: string) => sim.state().qrs.filter((q) => q.ref1 === ref1).length;
    /** The first view with SCB holding the create's answer; `serve` is killed once SCB applied it. */
    const crashDuringCreate = async (redirectId: string) => {
      sim.faults({ endpoint: 'createV2', fault: 'timeout' });
      await h.crashDuringFirstView(redirectId, 'SCB', () => bankCalls(CREATE));
    };
    const shownQr = (transactionId: string, redirectId: string) =>
      h.shownQr(
        transactionId,
        redirectId,
        (a) => a.state === 'requested' && a.qr_payload !== null,
        'the customer was shown and can pay',
      );

    test('killed during the create: after the restart the unseen QR is kept, checked; the page shows one', async () => {
      await h.start();
      const p = await h.initiate();
      await crashDuringCreate(p.redirectId);
      const [held, ...others] = await h.attempts(p.transactionid);
      assert.deepEqual([held?.attempt, held?.state, others.length], [1, 'pending', 0], 'the crash left it pending');
      assert.equal(qrsAtBank(held!.reference), 1, 'SCB created it');

      await h.start();
      const shown = await shownQr(p.transactionid, p.redirectId); // the customer's next view
      assert.equal(shown.attempt, 2, "the page shows the second attempt's QR");
      assert.notEqual(shown.reference, held!.reference);
      assert.deepEqual(
        (await h.attempts(p.transactionid)).map((a) => [a.attempt, a.state, a.qr_payload !== null]),
        [
          [1, 'requested', false],
          [2, 'requested', true],
        ],
        'the unseen one has no QR text: it is checked until SCB expires it, never shown',
      );
      assert.deepEqual([bankCalls(CREATE, held!.reference), bankCalls(CREATE, shown.reference)], [1, 1]);
      const again = await shownQr(p.transactionid, p.redirectId);
      assert.deepEqual(again, shown, 'the same QR on every view');
      assert.equal(bankCalls(CREATE, shown.reference), 1, 'no second create for it');

      const paid = sim.pay({ ref1: shown.reference });
      assert.ok(paid.ok);
      await paid.confirmation;
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
      // The customer pays the QR SCB made while no gateway runs; its confirmation finds nobody.
      const paid = sim.pay({ ref1: held!.reference, confirmation: 'drop' });
      assert.ok(paid.ok);

      await h.start(); // its reconciler settles the pending attempt
      await h.settledPaidOnce(p.transactionid);
      const creates = bankCalls(CREATE);
      await h.shownPaid(p.redirectId);
      assert.equal(bankCalls(CREATE), creates, 'no second QR');
      assert.equal(bankCalls(CREATE, held!.reference), 1);
      const after = await h.payment(p.transactionid);
      assert.deepEqual([after.transitions, after.notifications, after.paymentEntries], [1, 1, 1]);
    });
  });
}
