// The bank misbehaving under a live payment (docs/connectors/kbank.md "The QR", "Reconciler";
// docs/connectors/kbank-sim.md "Faults"), in the live
// gateway against kbank-sim, on both stores:
// - the access token running out between the QR and the callback, or refused (401) at an inquiry:
//   the token endpoint is called once more and the payment completes;
// - inquiries answered 429 during a reconciler round: the payment stays PROCESSING, nothing moves,
//   the attempt's next check is pushed back, and after the back-off the reconciler completes it;
// - a create answered 429, 500 or 504 at the first view, or the bank not listening at all: the
//   view fails with ProcessorUnavailable, the payment stays open, and once the bank answers again
//   the customer gets exactly one live QR at the bank.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { ProcessorUnavailable } from '../../../src/domain/processor-errors.ts';
import { startKbankSim, type KbankSim } from '../../../src/dev/kbank-sim/server.ts';
import { testDialects } from '../../support/dialects.ts';
import { startLiveGateway, type LiveGateway } from '../../support/live-gateway.ts';
import { assertUnchanged, snapshot } from '../../support/live-observe.ts';
import type { Started } from '../../support/lifecycle.ts';

const TOKEN = '/v2/oauth/token';
const REQUEST = '/v1/qrpayment/request';
const INQUIRY = '/v1/qrpayment/v4/inquiry';
const CANCEL = '/v1/qrpayment/cancel';
/** kbank-sim's tokens live 5 minutes here; the client renews one 1 minute early. */
const TOKEN_TTL_S = 300;

const unavailable = (error: unknown) => {
  assert.ok(error instanceof ProcessorUnavailable, String(error));
  return true;
};

/** The bank's records of a payment's attempts: `status` by attempt, oldest first. */
async function atBank(gw: LiveGateway, sim: KbankSim, p: Started): Promise<string[]> {
  const records = sim.state().records;
  return (await gw.attempts(p))
    .filter((a) => a.kind === 'qr')
    .flatMap((a) => {
      const found = records.find((r) => r.partnerTxnUid === a.reference);
      return found ? [`${a.attempt}:${found.status}`] : [];
    });
}

for (const { dialect, skip } of await testDialects()) {
  describe(`the bank misbehaving under a live payment [${dialect}]`, { skip }, () => {
    let gw: LiveGateway;

    before(async () => {
      gw = await startLiveGateway(dialect, { sim: { tokenTtlSeconds: TOKEN_TTL_S } });
    });
    after(async () => {
      await gw?.close();
    });

    const shown = () => gw.startShown();
    const send = async (body: string) => {
      assert.equal((await gw.callback(body)).status, 200);
      await gw.services.processor.reconciler.wake();
    };
    /** Requests logged at `path` for `uid`, as `status` or `status fault`. */
    const answers = (path: string, uid: string) =>
      gw.sim
        .log()
        .requests.filter(
          (r) => r.path === path && (r.body as { origPartnerTxnUid?: string })?.origPartnerTxnUid === uid,
        )
        .map((r) => `${r.answer?.status ?? 'none'}${r.fault ? ` ${r.fault}` : ''}`);
    const completedOnce = async (p: Started, before: { ledgerEntries: number; balance: bigint }) => {
      const after = await snapshot(gw, p);
      assert.deepEqual(
        [after.status, after.resultNotifications, after.paymentEntry, after.ledgerEntries - before.ledgerEntries],
        ['SUCCESS', 1, true, 1],
      );
      assert.equal(after.balance > before.balance, true);
      return after;
    };

    test('the access token runs out between the QR and the callback: one new token, completed', async () => {
      const { p, uid } = await shown();
      const before = await snapshot(gw, p);
      const tokens = gw.bankCalls(TOKEN);
      gw.advance((TOKEN_TTL_S + 1) * 1000); // past the token's life at the bank too
      await send(await gw.pay(uid));

      await completedOnce(p, before);
      assert.equal(gw.bankCalls(TOKEN), tokens + 1, 'the token endpoint was called again, once');
      assert.deepEqual(answers(INQUIRY, uid), ['200'], 'renewed before use: no inquiry was refused');
    });

    test('KBank refuses the token (401) at the inquiry: one new token, asked again, completed', async () => {
      const { p, uid } = await shown();
      const before = await snapshot(gw, p);
      const tokens = gw.bankCalls(TOKEN);
      const body = await gw.pay(uid);
      gw.sim.faults({ endpoint: 'inquiry', fault: 'openapi_error:Access Token expired', status: 401 });
      await send(body);

      await completedOnce(p, before);
      assert.equal(gw.bankCalls(TOKEN), tokens + 1, 'the token endpoint was called again, once');
      assert.deepEqual(answers(INQUIRY, uid), ['401 openapi_error:Access Token expired', '200']);
      assert.deepEqual(gw.sim.state().faults, []);
    });

    test('inquiries answered 429: PROCESSING, nothing moves, the next check backs off; then it completes', async () => {
      const { p, uid } = await shown();
      await gw.pay(uid); // paid at the bank; its callback is lost
      const before = await snapshot(gw, p);
      gw.sim.faults({ endpoint: 'inquiry', fault: 'rateLimit', count: 50 });
      try {
        await gw.reconcile();
        const limited = answers(INQUIRY, uid);
        assert.deepEqual(limited, Array(3).fill('429 rateLimit'), "one check: the client's three tries, all 429");
        await assertUnchanged(gw, p, before, 'still PROCESSING: no notification, no ledger posting');
        const [attempt] = await gw.attempts(p);
        assert.equal(attempt!.state, 'requested');
        assert.equal(attempt!.checks, 0, 'a refused inquiry is no check');
        assert.match(attempt!.lastError ?? '', /429/);
        assert.ok(attempt!.nextCheckAt! > gw.clock.now, 'the next check was pushed later');
        const lease = await gw.testStore.db
          .selectFrom('processor_attempts')
          .select('lease_owner')
          .where('reference', '=', uid)
          .executeTakeFirstOrThrow();
        assert.equal(lease.lease_owner, null, 'and the lease was given back');
      } finally {
        gw.sim.clearFaults();
      }

      // Not due yet: woken before the back-off is over, the reconciler leaves it alone.
      const asked = answers(INQUIRY, uid).length;
      await gw.services.processor.reconciler.wake();
      assert.equal(answers(INQUIRY, uid).length, asked);
      assert.equal((await gw.transaction(p)).status, 'PROCESSING');

      const [attempt] = await gw.attempts(p);
      gw.advance(attempt!.nextCheckAt! - gw.clock.now);
      await gw.services.processor.reconciler.wake();
      await completedOnce(p, before);
      assert.deepEqual(answers(INQUIRY, uid).slice(asked), ['200']);
    });

    test('a create answered 429 at the first view: ProcessorUnavailable; cleared, one QR, shown again', async () => {
      const p = await gw.start();
      const before = await snapshot(gw, p);
      const creates = gw.bankCalls(REQUEST);
      gw.sim.faults({ endpoint: 'request', fault: 'rateLimit' });
      await assert.rejects(gw.showQr(p), unavailable);

      assert.deepEqual(await snapshot(gw, p), { ...before, attempts: ['1:failed'] }, 'still PROCESSING');
      assert.deepEqual(await atBank(gw, gw.sim, p), [], 'the bank made no QR');
      assert.equal(gw.bankCalls(REQUEST), creates + 1);

      const qr = await gw.showQr(p);
      const again = await gw.showQr(p);
      assert.deepEqual([again.reference, again.qrPayload], [qr.reference, qr.qrPayload], 'the same QR, shown again');
      assert.equal(gw.bankCalls(REQUEST), creates + 2, 'one more create, not two');
      assert.deepEqual(await atBank(gw, gw.sim, p), ['2:REQUESTED'], 'exactly one QR at the bank');
      assert.equal((await gw.transaction(p)).status, 'PROCESSING');

      await send(await gw.pay(qr.reference));
      await completedOnce(p, before);
    });

    test('a create answered 500 at the first view: ProcessorUnavailable; the bank back, one live QR', async () => {
      const p = await gw.start();
      const before = await snapshot(gw, p);
      gw.sim.faults({ endpoint: 'request', fault: 'http500' });
      await assert.rejects(gw.showQr(p), unavailable);
      assert.deepEqual(
        await snapshot(gw, p),
        { ...before, attempts: ['1:pending'] },
        'open; the first attempt is unknown (a 5xx may have been applied)',
      );
      assert.deepEqual(await atBank(gw, gw.sim, p), []);
      const [first] = await gw.attempts(p);

      const qr = await gw.showQr(p);
      assert.deepEqual(
        (await snapshot(gw, p)).attempts,
        ['1:failed', '2:requested'],
        'the bank never had it (one inquiry said so), then the next one was created',
      );
      assert.deepEqual(answers(INQUIRY, first!.reference), ['200']);
      assert.deepEqual(await atBank(gw, gw.sim, p), ['2:REQUESTED'], 'one live QR');
      assert.equal(qr.attempt, 2);

      await send(await gw.pay(qr.reference));
      await completedOnce(p, before);
    });

    test('a create applied, answered 504: its unseen QR is cancelled, the customer sees one live QR', async () => {
      const p = await gw.start();
      const before = await snapshot(gw, p);
      gw.sim.faults({ endpoint: 'request', fault: 'http504' });
      await assert.rejects(gw.showQr(p), unavailable);
      assert.deepEqual(await snapshot(gw, p), { ...before, attempts: ['1:pending'] });
      assert.deepEqual(await atBank(gw, gw.sim, p), ['1:REQUESTED'], 'the bank made a QR nobody saw');
      const [first] = await gw.attempts(p);

      const qr = await gw.showQr(p);
      assert.deepEqual(await atBank(gw, gw.sim, p), ['1:CANCELLED', '2:REQUESTED'], 'exactly one live QR');
      assert.equal(gw.bankCalls(CANCEL, first!.reference), 1);
      assert.equal(gw.sim.pay(first!.reference).ok, false, 'the unseen QR cannot be paid');
      assert.deepEqual((await snapshot(gw, p)).attempts, ['1:cancelled', '2:requested']);

      await send(await gw.pay(qr.reference));
      await completedOnce(p, before);
    });
  });

  describe(`the bank not listening at the first view [${dialect}]`, { skip }, () => {
    let gw: LiveGateway;
    let port: number;
    let back: KbankSim | undefined;

    before(async () => {
      port = await freePort();
      gw = await startLiveGateway(dialect, { sim: { port } });
    });
    after(async () => {
      await gw?.close();
      await back?.close();
    });

    test('connection refused: ProcessorUnavailable, the payment stays open; the bank back, one live QR', async () => {
      const p = await gw.start();
      const before = await snapshot(gw, p);
      await gw.sim.close();
      await assert.rejects(gw.showQr(p), unavailable);
      assert.deepEqual(
        await snapshot(gw, p),
        { ...before, attempts: ['1:failed'] },
        'PROCESSING; nothing reached the bank',
      );

      // The bank comes back on the same address (a restart: its state is new).
      back = await startKbankSim({ port, now: gw.clock.now });
      const qr = await gw.showQr(p);
      assert.equal(qr.attempt, 2);
      assert.deepEqual(
        back.state().records.map((r) => [r.partnerTxnUid, r.status]),
        [[qr.reference, 'REQUESTED']],
        'exactly one QR at the bank: the one shown',
      );
      const again = await gw.showQr(p);
      assert.equal(again.reference, qr.reference);
      assert.equal(back.log().requests.filter((r) => r.path === REQUEST).length, 1);

      const paid = back.pay(qr.reference);
      assert.ok(paid.ok);
      assert.equal((await gw.callback((await paid.callback).body)).status, 200);
      await gw.services.processor.reconciler.wake();
      const after = await snapshot(gw, p);
      assert.deepEqual(
        [after.status, after.resultNotifications, after.ledgerEntries - before.ledgerEntries],
        ['SUCCESS', 1, 1],
      );
    });
  });
}

/** A port nothing listens on right now (for a bank that goes away and comes back on it). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
