// POST /processor/scb/confirm/:token (connectors/scb/confirm-route.ts; docs/connectors/scb.md
// "Confirmation") in the live gateway against scb-sim:
// - the route (SQLite): SCB's reply at once, naming its transactionId and our record as confirmId;
//   a wrong token is an unknown path (404) before the body is read; JSON only and at most 16 KiB
//   (413, never recorded); the address allow list (through TRUST_PROXY); the token never logged;
// - the confirmation is only a hint (both stores): a forged one for an unpaid ref1 completes
//   nothing; the same one several times (sent by the test, and by scb-sim over HTTP, resends
//   included) completes the payment once; a lost one is found by the reconciler's inquiry.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { testDialects } from '../../support/dialects.ts';
import { startTestGateway } from '../../support/test-gateway.ts';
import { CONFIRM_PATH_TOKEN, startLiveScbGateway, type LiveScbGateway } from '../../support/live-gateway.ts';
import { assertUnchanged, snapshot } from '../../support/live-observe.ts';

const INQUIRY = '/billpayment/inquiry';

/** A confirmation as SCB sends it, for `ref1` (nobody paid it: a forgery). */
function forgedBody(gw: LiveScbGateway, ref1: string, overrides: Record<string, string> = {}): string {
  return JSON.stringify({
    transactionId: `forged-${ref1}`,
    amount: '1000.00',
    transactionDateandTime: '2026-01-05T10:01:00+07:00',
    currencyCode: '764',
    transactionType: 'Domestic Transfers',
    payeeProxyId: gw.sim.credentials.billerId,
    payeeProxyType: 'BILLERID',
    payerName: 'SOMEONE',
    payerAccountNumber: '0123456789',
    billPaymentRef1: ref1,
    billPaymentRef2: 'REF2',
    billPaymentRef3: gw.sim.credentials.ref3Prefix,
    sendingBankCode: '014',
    receivingBankCode: '014',
    channelCode: 'PMH',
    ...overrides,
  });
}

const sqlite = (await testDialects()).find((d) => d.dialect === 'sqlite')!;

describe('the SCB confirmation route', { skip: sqlite.skip }, () => {
  let gw: LiveScbGateway;
  before(async () => {
    gw = await startLiveScbGateway('sqlite');
  });
  after(async () => {
    await gw?.close();
  });

  test("a payment's confirmation: recorded against its attempt, SCB's reply at once with our confirmId", async () => {
    const { p, uid } = await gw.startShown();
    const body = await gw.pay(uid);
    const answer = await gw.confirm(body);
    assert.equal(answer.status, 200);
    const reply = JSON.parse(answer.body) as Record<string, string>;
    const [recorded] = await gw.services.store.processorNotifications.forTransaction(p.transactionid);
    assert.deepEqual(reply, {
      resCode: '00',
      resDesc: 'success',
      transactionId: JSON.parse(body).transactionId,
      confirmId: recorded?.id,
    });
    assert.equal(recorded?.outcome, 'checked');
    assert.equal(recorded?.reference, uid);
    assert.equal(recorded?.processorTxnNo, JSON.parse(body).transactionId);
    assert.ok(gw.logs.lines.some((l) => /"outcome":"checked".*SCB confirmation received/.test(l)));
  });

  test('a wrong token is answered exactly like an unknown path, before the body is read', async () => {
    const body = forgedBody(gw, 'QNOTOURS0000001');
    for (const wrong of [CONFIRM_PATH_TOKEN.replace('l', 'L'), 'short', 'A'.repeat(CONFIRM_PATH_TOKEN.length)]) {
      const refused = await gw.confirm(body, { token: wrong });
      const unknown = await gw.app.inject({
        method: 'POST',
        url: `/processor/scb/elsewhere/${wrong}`,
        headers: { 'content-type': 'application/json' },
        payload: body,
      });
      assert.equal(refused.status, 404);
      const same = (text: string) => ({
        ...JSON.parse(text),
        error_text: String(JSON.parse(text).error_text).split(' /')[0],
      });
      assert.deepEqual(same(refused.body), same(unknown.body));
    }
    const huge = await gw.confirm('x'.repeat(64 * 1024), { token: 'wrong' });
    assert.equal(huge.status, 404, 'not 413: nothing about the route is told without the token');
  });

  test('a body over 16 KiB is refused (413) and never recorded; JSON only (415)', async () => {
    const before = (await gw.testStore.db.selectFrom('processor_notifications').select('id').execute()).length;
    const big = forgedBody(gw, 'QNOTOURS0000002', { payerName: 'x'.repeat(17 * 1024) });
    assert.equal((await gw.confirm(big)).status, 413);
    assert.equal((await gw.confirm('billPaymentRef1=Q1', { contentType: 'text/plain' })).status, 415);
    const afterwards = (await gw.testStore.db.selectFrom('processor_notifications').select('id').execute()).length;
    assert.equal(afterwards, before);
    assert.ok(!gw.logs.text.includes('QNOTOURS0000002'));
  });

  test('unreadable or not about our QRs: answered all the same (SCB does not resend it), and logged', async () => {
    const broken = await gw.confirm('{"billPaymentRef1":"Q0');
    assert.equal(broken.status, 200);
    assert.equal(JSON.parse(broken.body).resCode, '00');
    assert.equal(JSON.parse(broken.body).transactionId, '');
    const unknown = await gw.confirm(forgedBody(gw, 'QNOTOURS0000003'));
    assert.equal(JSON.parse(unknown.body).transactionId, 'forged-QNOTOURS0000003');
    assert.ok(gw.logs.lines.some((l) => /"outcome":"unreadable".*SCB confirmation received: unreadable/.test(l)));
    assert.ok(gw.logs.lines.some((l) => /"outcome":"unknown".*SCB confirmation received: unknown/.test(l)));
  });

  test('the path token is never logged', () => {
    assert.ok(!gw.logs.text.includes(CONFIRM_PATH_TOKEN));
    assert.ok(gw.logs.text.includes('/processor/scb/confirm/[redacted]'));
  });

  test('the sandbox connector has no such route', async () => {
    const sandbox = await startTestGateway('sqlite');
    try {
      const answer = await sandbox.app.inject({
        method: 'POST',
        url: `/processor/scb/confirm/${CONFIRM_PATH_TOKEN}`,
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(answer.statusCode, 404);
    } finally {
      await sandbox.close();
    }
  });
});

describe('the SCB confirmation route with SCB_CONFIRM_ALLOW_CIDRS', { skip: sqlite.skip }, () => {
  let direct: LiveScbGateway;
  let proxied: LiveScbGateway;
  before(async () => {
    const allow = { SCB_CONFIRM_ALLOW_CIDRS: '203.0.113.0/24,2001:db8::/32' };
    direct = await startLiveScbGateway('sqlite', { env: allow });
    proxied = await startLiveScbGateway('sqlite', { env: { ...allow, TRUST_PROXY: '127.0.0.1' } });
  });
  after(async () => {
    await direct?.close();
    await proxied?.close();
  });

  const from = async (gw: LiveScbGateway, remoteAddress: string, headers: Record<string, string> = {}) =>
    (
      await gw.app.inject({
        method: 'POST',
        url: `/processor/scb/confirm/${CONFIRM_PATH_TOKEN}`,
        headers: { 'content-type': 'application/json', ...headers },
        payload: forgedBody(gw, 'QNOTOURS0000004'),
        remoteAddress,
      })
    ).statusCode;

  test('only the listed addresses may call, as TRUST_PROXY makes them; others get 403 and a warning', async () => {
    assert.equal(await from(direct, '203.0.113.9'), 200);
    assert.equal(await from(direct, '::ffff:203.0.113.10'), 200, 'IPv4 on a dual-stack socket');
    assert.equal(await from(direct, '2001:db8::7'), 200);
    assert.equal(await from(direct, '198.51.100.1'), 403);
    assert.ok(direct.logs.lines.some((l) => /198\.51\.100\.1.*not in SCB_CONFIRM_ALLOW_CIDRS/.test(l)));
    assert.equal(await from(proxied, '127.0.0.1', { 'x-forwarded-for': '203.0.113.20' }), 200);
    assert.equal(await from(proxied, '127.0.0.1', { 'x-forwarded-for': '198.51.100.2' }), 403);
    assert.equal(await from(direct, '198.51.100.3', { 'x-forwarded-for': '203.0.113.21' }), 403);
  });
});

for (const { dialect, skip } of await testDialects()) {
  describe(`SCB confirmations are hints [${dialect}]`, { skip }, () => {
    let gw: LiveScbGateway;
    before(async () => {
      gw = await startLiveScbGateway(dialect);
    });
    after(async () => {
      await gw?.close();
    });

    const send = async (body: string) => {
      const answer = await gw.confirm(body);
      await gw.services.processor.reconciler.wake();
      return answer;
    };

    test('forged: a confirmation for an unpaid ref1 completes nothing, at the cost of one inquiry', async () => {
      const { p, uid } = await gw.startShown();
      const before = await snapshot(gw, p);
      const inquiries = gw.bankCalls(INQUIRY);
      const answer = await send(forgedBody(gw, uid));
      assert.equal(JSON.parse(answer.body).resCode, '00', 'answered as received');
      await assertUnchanged(gw, p, before, 'still PROCESSING, no notification, no ledger posting');
      assert.equal(gw.bankCalls(INQUIRY) - inquiries, 1, 'checked by one inquiry');
      const [attempt] = await gw.attempts(p);
      assert.equal(attempt?.state, 'requested');
      // scb-sim's own forged confirmation (a payment nobody made) is read the same way.
      const forged = await gw.sim.forgeConfirmation({ ref1: uid, amount: '1000.00' });
      await send(forged.body);
      await assertUnchanged(gw, p, before, 'still nothing');
    });

    test('duplicate: the same confirmation three times completes the payment once', async () => {
      const { p, uid } = await gw.startShown();
      const before = await snapshot(gw, p);
      const body = await gw.pay(uid);
      for (let i = 0; i < 3; i++) assert.equal((await send(body)).status, 200);
      const after = await snapshot(gw, p);
      assert.deepEqual(
        [after.status, after.resultNotifications, after.paymentEntry, after.ledgerEntries - before.ledgerEntries],
        ['SUCCESS', 1, true, 1],
      );
      const outcomes = (await gw.services.store.processorNotifications.forTransaction(p.transactionid)).map(
        (n) => n.outcome,
      );
      assert.deepEqual(outcomes.sort(), ['checked', 'duplicate', 'duplicate']);
    });

    test('duplicate over HTTP: scb-sim sends it three times, each answered as SCB asks; applied once', async () => {
      await gw.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = gw.app.server.address() as AddressInfo;
      gw.sim.setConfirmUrl(`http://127.0.0.1:${port}/processor/scb/confirm/${CONFIRM_PATH_TOKEN}`);
      try {
        const { p, uid } = await gw.startShown();
        const before = await snapshot(gw, p);
        const paid = gw.sim.pay({ ref1: uid, confirmation: 'duplicate:3' });
        assert.ok(paid.ok);
        const delivery = await paid.confirmation;
        assert.equal(delivery.outcome, 'delivered');
        assert.ok(delivery.attempts.every((a) => a.status === 200 && JSON.parse(a.answer!).resCode === '00'));
        await gw.services.processor.reconciler.wake();
        const after = await snapshot(gw, p);
        assert.deepEqual(
          [after.status, after.resultNotifications, after.ledgerEntries - before.ledgerEntries],
          ['SUCCESS', 1, 1],
        );
      } finally {
        gw.sim.setConfirmUrl(null);
      }
    });

    test('lost: a payment whose confirmation never came is found by the reconciler', async () => {
      const { p, uid } = await gw.startShown();
      const before = await snapshot(gw, p);
      await gw.pay(uid, { confirmation: 'drop' });
      await assertUnchanged(gw, p, before, 'nothing without the confirmation, yet');
      await gw.reconcile();
      const after = await snapshot(gw, p);
      assert.deepEqual([after.status, after.resultNotifications, after.attempts], ['SUCCESS', 1, ['1:paid']]);
      const [attempt] = await gw.attempts(p);
      assert.equal(attempt?.processorTxnNo, gw.sim.state().payments.find((x) => x.ref1 === uid)?.transactionId);
    });
  });
}
