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
import { renderQrSvg } from '../../src/http/hosted-page/qr-svg.ts';
import { openStoreEngine, type StoreEngine } from '../../src/store/engine.ts';
import { scbEnvFor } from '../support/connector-harnesses.ts';
import { createMerchant, gatewayEnv, type Creds } from '../support/delivery-process.ts';
import { testDialects } from '../support/dialects.ts';
import {
  freePort,
  killLeftoverGateways,
  startGatewayProcess,
  type GatewayProcess,
} from '../support/gateway-process.ts';
import { createTestDatabase } from '../support/test-store.ts';
import { initiationBody } from '../support/test-gateway.ts';

const TOKEN = 'crash-test-confirm-token-0123456789abcdef';
const CREATE = '/v2/payment/qrcode/create';
/** The reconciler's first check of an attempt comes 15 s after it was written (check-schedule.ts). */
const CONVERGE_MS = 45_000;

for (const { dialect, skip } of await testDialects()) {
  describe(`a live SCB gateway killed while SCB holds its answer [${dialect}]`, { skip }, () => {
    let sim: ScbSim;
    let database: { databaseUrl: string; drop(): Promise<void> };
    let engine: StoreEngine;
    let env: Record<string, string>;
    let creds: Creds;
    let gateway: GatewayProcess | undefined;
    let trackid = 0;

    before(async () => {
      sim = await startScbSim({ now: Date.now(), tickingClock: true });
      database = await createTestDatabase(dialect);
      const port = await freePort();
      env = gatewayEnv(database.databaseUrl, {
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
      // SCB's confirmations go to whichever `serve` is running on that port.
      sim.setConfirmUrl(`http://127.0.0.1:${port}/processor/scb/confirm/${TOKEN}`);
    });
    afterEach(async () => {
      sim.clearFaults();
      await gateway?.stop('SIGKILL');
      gateway = undefined;
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
    const api = async (path: string, body: unknown) => {
      const res = await fetch(`${gateway!.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const initiate = async (amount = '1000.00') => {
      const res = await api(
        '/transaction/s2s',
        initiationBody(creds, {
          trackid: `scb-crash-${process.pid}-${++trackid}`,
          bill_amount: amount,
          serverUrl: 'https://merchant.example/notify',
        }),
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const page = new URL(res.body.redirectUrl as string);
      assert.equal(`${page.origin}${page.pathname}`, 'https://pay.example/transaction/Redirect');
      const redirectId = page.searchParams.get('ID')!;
      return { transactionid: res.body.transactionid as string, redirectId };
    };
    const attempts = (transactionId: string) =>
      engine.db
        .selectFrom('processor_attempts')
        .select(['reference', 'kind', 'attempt', 'state', 'qr_payload'])
        .where('transaction_id', '=', transactionId)
        .orderBy('kind')
        .orderBy('attempt')
        .execute();
    const payment = async (transactionId: string) => {
      const db = engine.db;
      const row = await db
        .selectFrom('transactions')
        .select(['status', 'refunded_minor'])
        .where('id', '=', transactionId)
        .executeTakeFirstOrThrow();
      const count = async (table: 'transaction_transitions' | 'outbox_events' | 'refunds') =>
        (await db.selectFrom(table).select('transaction_id').where('transaction_id', '=', transactionId).execute())
          .length;
      return {
        status: row.status,
        refundedMinor: BigInt(row.refunded_minor),
        transitions: await count('transaction_transitions'),
        notifications: await count('outbox_events'),
        refunds: await count('refunds'),
        paymentEntries: (
          await db.selectFrom('journal_entries').select('id').where('transaction_id', '=', transactionId).execute()
        ).length,
      };
    };
    const until = async <T>(what: string, read: () => Promise<T> | T, done: (v: T) => boolean): Promise<T> => {
      const deadline = Date.now() + CONVERGE_MS;
      for (;;) {
        const value = await read();
        if (done(value)) return value;
        if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    /** The customer's browser: GET of the hosted page on the running `serve` (English). */
    const view = async (redirectId: string) => {
      const res = await fetch(`${gateway!.url}/transaction/Redirect?ID=${encodeURIComponent(redirectId)}&lang=en`);
      return { status: res.status, body: await res.text() };
    };
    const svgOf = (body: string) => /<svg[\s\S]*?<\/svg>/.exec(body)?.[0]?.replace(/ aria-label="[^"]*"/, '');
    /** The page shows the one payable QR, verbatim: resolves with its attempt. */
    const shownQr = async (transactionId: string, redirectId: string) => {
      const page = await view(redirectId);
      assert.equal(page.status, 200, page.body);
      const payable = (await attempts(transactionId)).filter((a) => a.state === 'requested' && a.qr_payload !== null);
      assert.equal(payable.length, 1, 'exactly one QR the customer was shown and can pay');
      const [qr] = payable;
      const payload = qr!.qr_payload;
      assert.ok(payload, 'the payable QR has its payload');
      assert.equal(svgOf(page.body), (await renderQrSvg(payload)).replace(/ aria-label="[^"]*"/, ''), 'the QR shown');
      assert.match(page.body, /id="cancel"/);
      return { reference: qr!.reference, attempt: qr!.attempt, payload };
    };
    /** The page shows the payment's success, and no QR. */
    const shownPaid = async (redirectId: string) => {
      const page = await view(redirectId);
      assert.equal(page.status, 200, page.body);
      assert.match(page.body, /Payment successful/);
      assert.doesNotMatch(page.body, /id="cancel"|data-remaining-ms/);
    };

    /** The first view with SCB holding the create's answer; `serve` is killed once SCB applied it. */
    const crashDuringCreate = async (redirectId: string) => {
      const before = bankCalls(CREATE);
      sim.faults({ endpoint: 'createV2', fault: 'timeout' });
      const firstView = view(redirectId);
      firstView.catch(() => undefined);
      await until(
        'the create reaching SCB',
        () => bankCalls(CREATE),
        (n) => n === before + 1,
      );
      assert.equal(await gateway!.stop('SIGKILL'), null);
      assert.equal((await gateway!.exited).signal, 'SIGKILL');
      gateway = undefined;
      // The customer's browser loses the connection: no page at all.
      await assert.rejects(firstView, (error: Error & { cause?: { code?: string } }) => {
        assert.equal(error.name, 'TypeError', String(error));
        assert.ok(['UND_ERR_SOCKET', 'ECONNRESET'].includes(String(error.cause?.code)), String(error.cause));
        return true;
      });
    };

    test('killed during the create: after the restart the unseen QR is kept, checked; the page shows one', async () => {
      gateway = await startGatewayProcess(env);
      const p = await initiate();
      await crashDuringCreate(p.redirectId);
      const [held, ...others] = await attempts(p.transactionid);
      assert.deepEqual([held?.attempt, held?.state, others.length], [1, 'pending', 0], 'the crash left it pending');
      assert.equal(qrsAtBank(held!.reference), 1, 'SCB created it');

      gateway = await startGatewayProcess(env);
      const shown = await shownQr(p.transactionid, p.redirectId); // the customer's next view
      assert.equal(shown.attempt, 2, "the page shows the second attempt's QR");
      assert.notEqual(shown.reference, held!.reference);
      assert.deepEqual(
        (await attempts(p.transactionid)).map((a) => [a.attempt, a.state, a.qr_payload !== null]),
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
      const done = await until(
        'the payment completing',
        () => payment(p.transactionid),
        (s) => s.status === 'SUCCESS',
      );
      assert.deepEqual([done.transitions, done.notifications, done.paymentEntries], [1, 1, 1]);
      await shownPaid(p.redirectId);
    });

    test('killed during the create, the held QR paid meanwhile: after the restart SUCCESS once', async () => {
      gateway = await startGatewayProcess(env);
      const p = await initiate();
      await crashDuringCreate(p.redirectId);
      const [held] = await attempts(p.transactionid);
      assert.equal(held?.state, 'pending');
      // The customer pays the QR SCB made while no gateway runs; its confirmation finds nobody.
      const paid = sim.pay({ ref1: held!.reference, confirmation: 'drop' });
      assert.ok(paid.ok);

      gateway = await startGatewayProcess(env); // its reconciler settles the pending attempt
      const done = await until(
        'the restarted gateway completing the payment',
        () => payment(p.transactionid),
        (s) => s.status === 'SUCCESS',
      );
      assert.deepEqual([done.transitions, done.notifications, done.paymentEntries], [1, 1, 1]);
      // The attempt is marked paid just after the payment's commit (the reconciler releases it then).
      const marked = await until(
        'the attempt marked paid',
        async () => (await attempts(p.transactionid)).map((a) => [a.attempt, a.state]),
        (rows) => rows.length === 1 && rows[0]![1] === 'paid',
      );
      assert.deepEqual(marked, [[1, 'paid']]);
      const creates = bankCalls(CREATE);
      await shownPaid(p.redirectId);
      assert.equal(bankCalls(CREATE), creates, 'no second QR');
      assert.equal(bankCalls(CREATE, held!.reference), 1);
      const after = await payment(p.transactionid);
      assert.deepEqual([after.transitions, after.notifications, after.paymentEntries], [1, 1, 1]);
    });
  });
}
