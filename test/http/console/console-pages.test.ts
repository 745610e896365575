// The console's other pages over HTTP on both stores: notifications (failed first, scoped),
// balances and postings with an exact CSV export, merchants (create, secrets shown once,
// rotate, disable, console password — the CLI's use cases, audited), and the audit log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  initiationBody,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { ConsoleClient, confirmationFields, consoleOf, OPERATOR_PASSWORD } from '../../support/console-client.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`console pages (${dialect})`, { skip }, () => {
    let gw: TestGateway;
    let shopA: MerchantCredentials;
    let shopB: MerchantCredentials;
    let operator: ConsoleClient;
    let merchantA: ConsoleClient;

    async function paid(creds: MerchantCredentials, amount: string): Promise<string> {
      const r = await post(
        gw,
        '/transaction/s2s',
        initiationBody(creds, { trackid: `t-${Math.random().toString(36).slice(2, 10)}`, bill_amount: amount }),
      );
      await gw.services.complete.execute(r.body.transactionid, 'sandbox', { override: 'success' });
      return r.body.transactionid as string;
    }

    before(async () => {
      gw = await startTestGateway(dialect);
      const c = consoleOf(gw);
      await c.accounts.createOperator({ username: 'op', password: OPERATOR_PASSWORD, totp: false });
      shopA = await addMerchant(gw, { id: 'shop-a', feeRate: '0.0175' });
      shopB = await addMerchant(gw, { id: 'shop-b' });
      const consolePassword = (await c.accounts.issueMerchantPassword('shop-a')).password;
      operator = new ConsoleClient(gw.app);
      assert.equal((await operator.login('operator', 'op', OPERATOR_PASSWORD)).status, 303);
      merchantA = new ConsoleClient(gw.app);
      assert.equal((await merchantA.login('merchant', 'shop-a', consolePassword)).status, 303);
    });
    after(() => gw?.close());

    /**
     * The story of a notification that needs a person: series 1 failed after two attempts, a
     * resend started series 2, whose first attempt failed too and is retrying (pending). The
     * attempts go into the store's attempt log; the event's counters are set as the worker leaves
     * them.
     */
    async function failingAfterResend(transactionId: string): Promise<string> {
      const event = (await gw.services.store.outbox.findByTransaction(transactionId))!;
      const attempt = (series: number, startedAt: number) => ({
        attempt: {
          eventId: event.id,
          series,
          startedAt,
          latencyMs: 20,
          httpStatus: 503,
          error: null,
          responseExcerpt: 'busy',
          instanceId: 'test',
        },
        owner: 'nobody',
        transition: { status: 'failed' as const, lastError: 'HTTP 503' },
      });
      const now = gw.clock.now;
      await gw.services.store.deliveries.recordAttempts([attempt(1, now), attempt(1, now + 1), attempt(2, now + 2)]);
      await gw.testStore.db
        .updateTable('outbox_events')
        .set({ status: 'pending', series: 2, attempts: 1, last_error: 'HTTP 503', next_attempt_at: now + 60_000 })
        .where('id', '=', event.id)
        .execute();
      return event.id;
    }

    test('notifications open on what needs a person: failed, and pending after a failed attempt', async () => {
      const a = await paid(shopA, '100.00');
      const b = await paid(shopB, '100.00');
      const outbox = gw.services.store.outbox;
      for (const id of [a, b]) {
        const e = (await outbox.findByTransaction(id))!;
        await gw.testStore.db
          .updateTable('outbox_events')
          .set({ status: 'failed', last_error: 'HTTP 503 from merchant' })
          .where('id', '=', e.id)
          .execute();
      }
      const pending = await paid(shopA, '101.00');
      const retrying = await paid(shopA, '102.00');
      await failingAfterResend(retrying);
      const page = await operator.get('/console/deliveries');
      assert.equal(page.status, 200);
      assert.ok(page.body.includes(retrying), 'the retrying one is on the first tab');
      assert.match(page.body, /aria-current="page">ต้องตรวจสอบ</, 'the "Needs attention" tab');
      assert.ok(!(await operator.get('/console/deliveries?status=failed')).body.includes(retrying));
      assert.ok((await operator.get('/console/deliveries?status=pending')).body.includes(retrying));
      assert.ok(page.body.includes(a) && page.body.includes(b), 'both failed ones');
      assert.ok(!page.body.includes(pending), 'a pending one not yet tried needs no one');
      assert.ok((await operator.get('/console/deliveries?status=pending')).body.includes(pending));
      const mine = await merchantA.get('/console/deliveries');
      assert.ok(mine.body.includes(a));
      assert.ok(!mine.body.includes(b), "another merchant's notification is not listed");
      const narrowed = await operator.get('/console/deliveries?status=failed&merchant=shop-b');
      assert.ok(narrowed.body.includes(b) && !narrowed.body.includes(a), 'operators can narrow to one merchant');
      const forced = await merchantA.get('/console/deliveries?merchant=shop-b');
      assert.ok(
        forced.body.includes(a) && !forced.body.includes(b),
        'a merchant naming another merchant still sees only its own',
      );
    });

    test(
      'balances: exact amounts; CSV export has every posting, ' +
        'exact, oldest first; a merchant cannot read another ledger',
      async () => {
        const before = await merchantA.get('/console/balances');
        assert.equal(before.status, 200);
        await paid(shopA, '1000.00');
        await paid(shopA, '333.33');
        // Fee 1.75 %: 1000.00 → 17.5000 fee; 333.33 → 5.833275 → half-even at 4 decimals = 5.8333.
        const csv = await merchantA.get('/console/balances/postings.csv');
        assert.equal(csv.status, 200);
        assert.match(String(csv.headers['content-type']), /^text\/csv/);
        assert.match(
          String(csv.headers['content-disposition']),
          /^attachment; filename="merchant_payout_shop-a_THB-\d{4}-\d{2}-\d{2}\.csv"$/,
        );
        const lines = csv.body.trimEnd().split('\r\n');
        assert.equal(
          lines[0],
          'account_seq,created_at,entry_id,kind,transactionid,reason,currency,amount,balance_after,' +
            'refundid,refund_reason',
        );
        const rows = lines.slice(1).map((l) => l.split(','));
        assert.deepEqual(
          rows.map((r) => r[0]),
          rows.map((_, i) => String(i + 1)),
          'every posting, oldest first',
        );
        const [last, prev] = [rows.at(-1)!, rows.at(-2)!];
        assert.equal(prev[7], '982.5000');
        assert.equal(last[7], '327.4967');
        // The balance column is the running sum of the amount column, to the 1/10,000.
        let running = 0n;
        for (const r of rows) {
          running += BigInt(r[7]!.replace('.', ''));
          assert.equal(BigInt(r[8]!.replace('.', '')), running);
        }
        const page = await merchantA.get('/console/balances');
        assert.ok(
          page.body.includes(
            `${Number(running / 10_000n).toLocaleString('en-US')}.${String(running % 10_000n).padStart(4, '0')} THB`,
          ),
        );
        // Naming another merchant or its account changes nothing for a merchant.
        const forced = await merchantA.get(
          '/console/balances/postings.csv?merchant=shop-b&account=merchant_payout:shop-b:THB',
        );
        assert.equal(
          forced.body,
          (await merchantA.get('/console/balances/postings.csv')).body,
          "still the merchant's own postings",
        );
        assert.ok(!forced.body.includes('shop-b'));
        assert.match(String(forced.headers['content-disposition']), /shop-a/);
        const [entry] = await gw.services.store.consoleAccounts.listAudit({ limit: 1, action: 'ledger.export_csv' });
        assert.equal(entry?.actorId, 'shop-a');
        assert.equal(entry?.target, 'merchant_payout:shop-a:THB');
      },
    );

    test(
      'refunds: through the refund use case, shown with their notification and ' +
        'ledger entry; a double submit refunds once; over-refunds are refused',
      async () => {
        const id = await paid(shopA, '1000.00');
        const other = await paid(shopB, '500.00');
        const page = await merchantA.get(`/console/payments/${id}`);
        assert.match(page.body, /<input id="refund_amount" name="amount"[^>]*value="1000\.00"/);
        const csrf = merchantA.csrf();
        const key = /name="refund_key" value="([^"]+)"/.exec(page.body)![1]!;
        const { confirm, done } = await merchantA.refund(id, {
          csrf,
          refund_key: key,
          amount: '300.00',
          reason: 'one bag arrived damaged',
        });
        assert.equal(done.status, 303);
        const refundId = /refund=(rfd_[A-Za-z0-9_-]+)/.exec(done.location!)![1]!;
        const again = await merchantA.post(`/console/payments/${id}/refund`, confirmationFields(confirm.body));
        assert.equal(
          /refund=(rfd_[A-Za-z0-9_-]+)/.exec(again.location!)![1],
          refundId,
          'the same form twice is one refund',
        );
        const refunds = await gw.services.refunds.ofTransaction(id);
        assert.equal(refunds.length, 1);
        assert.equal(refunds[0]!.amountMinor, 3_000_000n);
        const detail = await merchantA.get(done.location!);
        assert.ok(detail.body.includes(refundId));
        assert.match(detail.body, /one bag arrived damaged/);
        assert.match(detail.body, /฿300\.00/);
        assert.match(detail.body, /value="700\.00"/, 'the form offers what is left');
        assert.match(detail.body, / · refund · /, 'the refund ledger entry is listed');
        assert.match(detail.body, /-300\.0000 THB/);

        await merchantA.get(`/console/payments/${id}`);
        const tooMuch = await merchantA.post(`/console/payments/${id}/refund`, {
          csrf: merchantA.csrf(),
          refund_key: 'console-other',
          amount: '700.01',
        });
        assert.equal(tooMuch.status, 409);
        assert.match(tooMuch.body, /more than the 700\.00 THB still refundable/);
        assert.ok(tooMuch.body.includes(`href="/console/payments/${id}"`), 'leads back to the payment');
        assert.equal((await gw.services.refunds.ofTransaction(id)).length, 1, 'nothing changed');
        assert.equal(
          (await merchantA.post(`/console/payments/${id}/refund`, { refund_key: 'console-x', amount: '1.00' })).status,
          403,
          'no CSRF token',
        );
        await merchantA.get(`/console/payments/${id}`);
        assert.equal(
          (
            await merchantA.post(`/console/payments/${other}/refund`, {
              csrf: merchantA.csrf(),
              refund_key: 'console-y',
              amount: '1.00',
            })
          ).status,
          404,
          "another merchant's payment",
        );
        assert.equal((await gw.services.refunds.ofTransaction(other)).length, 0);

        // The refund's notification can be resent from the payment page; another payment's event cannot.
        const outbox = gw.services.store.outbox;
        const refundEvent = (await outbox.findByRefund(refundId))!;
        await merchantA.get(`/console/payments/${id}`);
        const resent = await merchantA.post(`/console/payments/${id}/resend`, {
          csrf: merchantA.csrf(),
          event: refundEvent.id,
        });
        assert.equal(resent.location, `/console/payments/${id}?done=resent&series=2#refunds`);
        assert.equal((await outbox.findById(refundEvent.id))!.series, 2);
        const foreignEvent = (await outbox.findByTransaction(other))!;
        await merchantA.get(`/console/payments/${id}`);
        assert.equal(
          (await merchantA.post(`/console/payments/${id}/resend`, { csrf: merchantA.csrf(), event: foreignEvent.id }))
            .status,
          404,
        );
        assert.equal((await outbox.findById(foreignEvent.id))!.series, 1);

        const [entry] = await gw.services.store.consoleAccounts.listAudit({ limit: 1, action: 'payment.refund' });
        assert.equal(entry?.target, id);
        assert.equal(entry?.actorId, 'shop-a');
        assert.deepEqual(entry?.details, {
          refundid: refundId,
          amount: '300.00',
          currency: 'THB',
          reason: 'one bag arrived damaged',
        });
      },
    );

    test('operators pick a merchant for balances; an unknown merchant is a 404', async () => {
      const picker = await operator.get('/console/balances');
      assert.ok(picker.body.includes('value="shop-b"'));
      assert.equal((await operator.get('/console/balances?merchant=shop-b')).status, 200);
      assert.equal((await operator.get('/console/balances?merchant=nobody')).status, 404);
    });

    test('create a merchant: secrets shown once, usable at once, audited without secrets', async () => {
      const list = await operator.get('/console/merchants');
      assert.equal(list.status, 200);
      const created = await operator.post('/console/merchants', {
        csrf: operator.csrf(),
        name: 'Chiang Mai Crafts',
        payout_currency: 'THB',
        payout_account: '1234 5678 9012',
        id: 'cm-crafts',
        fee_rate: '0.02',
      });
      assert.equal(created.status, 200);
      assert.equal(created.headers['cache-control'], 'no-store');
      const password = /<dt>password<\/dt><dd><div class="secret">([^<]+)</.exec(created.body)![1]!;
      const secret = /<dt>webhook_secret<\/dt><dd><div class="secret">([^<]+)</.exec(created.body)![1]!;
      const init = await post(gw, '/transaction/s2s', initiationBody({ merchantid: 'cm-crafts', password }));
      assert.equal(init.body.responsecode, '9', 'the new credentials work at once');
      const again = await operator.get('/console/merchants');
      assert.ok(again.body.includes('cm-crafts'));
      assert.ok(!again.body.includes(password) && !again.body.includes(secret), 'never shown again');
      assert.ok(again.body.includes('••••9012') && !again.body.includes('123456789012'), 'payout account masked');
      const [entry] = await gw.services.store.consoleAccounts.listAudit({ limit: 1, action: 'merchant.create' });
      assert.equal(entry?.target, 'cm-crafts');
      assert.ok(!JSON.stringify(entry).includes(password) && !JSON.stringify(entry).includes(secret));

      const bad = await operator.post('/console/merchants', {
        csrf: operator.csrf(),
        name: 'X',
        payout_currency: 'THB',
        payout_account: 'abc',
      });
      assert.equal(bad.status, 400);
      assert.match(bad.body, /payout-account/);
    });

    test(
      'rotate API password and webhook secret, issue a console ' +
        'password, disable: each through the use case, audited',
      async () => {
        await operator.get('/console/merchants');
        const rotated = await operator.post('/console/merchants/shop-b/rotate-password', { csrf: operator.csrf() });
        const password = /<div class="secret">(pw_[^<]+)</.exec(rotated.body)![1]!;
        assert.equal(
          (await post(gw, '/transaction/s2s', initiationBody({ merchantid: 'shop-b', password }))).body.responsecode,
          '9',
        );
        assert.equal(
          (await post(gw, '/transaction/s2s', initiationBody(shopB))).status,
          401,
          'the old password stops working',
        );

        await operator.get('/console/merchants');
        const webhook = await operator.post('/console/merchants/shop-b/rotate-webhook-secret', {
          csrf: operator.csrf(),
        });
        assert.match(webhook.body, /<div class="secret">whsec_/);
        assert.notEqual(
          (await gw.services.merchants.findById('shop-b'))!.previousWebhookSecretSealed,
          null,
          'the old secret keeps signing for the overlap',
        );

        await operator.get('/console/merchants');
        const issued = await operator.post('/console/merchants/shop-b/console-password', { csrf: operator.csrf() });
        const consolePassword = /<dt>password<\/dt><dd><div class="secret">([^<]+)</.exec(issued.body)![1]!;
        const shopBConsole = new ConsoleClient(gw.app);
        assert.equal((await shopBConsole.login('merchant', 'shop-b', consolePassword)).status, 303);

        await operator.get('/console/merchants');
        const disabled = await operator.post('/console/merchants/shop-b/disable', { csrf: operator.csrf() });
        assert.equal(disabled.status, 200);
        assert.equal((await gw.services.merchants.findById('shop-b'))!.status, 'disabled');
        assert.equal((await shopBConsole.get('/console/payments')).status, 303, "the merchant's console session ended");
        assert.equal(
          (await post(gw, '/transaction/s2s', initiationBody({ merchantid: 'shop-b', password }))).status,
          403,
        );

        const actions = (await gw.services.store.consoleAccounts.listAudit({ limit: 20 }))
          .filter((e) => e.target === 'shop-b')
          .map((e) => e.action);
        for (const a of [
          'merchant.rotate_password',
          'merchant.rotate_webhook_secret',
          'merchant.console_password',
          'merchant.disable',
        ])
          assert.ok(actions.includes(a), a);
        assert.equal((await operator.post('/console/merchants/shop-b/enable', { csrf: 'forged' })).status, 403);
        assert.equal(
          (await gw.services.merchants.findById('shop-b'))!.status,
          'disabled',
          'a forged form changes nothing',
        );
      },
    );

    test('the payment counts every attempt its table lists; times carry their zone', async () => {
      const id = await paid(shopA, '103.00');
      await failingAfterResend(id);
      const page = await operator.get(`/console/payments/${id}?lang=en`);
      assert.equal(page.status, 200);
      // Cells carry their column's label for a phone's card layout (http/console/table-cards.ts).
      const attemptRow = /<td class="num"[^>]*>\d+<\/td><td[^>]*>[12]<\/td>/g;
      assert.equal((page.body.match(attemptRow) ?? []).length, 3, 'three rows');
      assert.match(page.body, /<dt>Attempts<\/dt><dd>3 \(1 in this series\)<\/dd>/);
      assert.match(page.body, /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\+7/);
      const thai = await operator.get(`/console/payments/${id}?lang=th`);
      assert.match(thai.body, /<dd>3 \(1 ครั้งในรอบนี้\)<\/dd>/);
    });

    test('the audit log page lists who did what from where; merchants cannot open it', async () => {
      const page = await operator.get('/console/audit');
      assert.equal(page.status, 200);
      assert.match(page.body, /merchant\.create/);
      assert.match(page.body, /login/);
      assert.match(page.body, /127\.0\.0\.1/);
      const filtered = await operator.get('/console/audit?action=merchant.disable');
      assert.ok(filtered.body.includes('merchant.disable') && !filtered.body.includes('merchant.create'));
      assert.equal((await merchantA.get('/console/audit')).status, 404);
    });

    test("the audit log names operators by username and keeps the two-factor flag, not a secret's value", async () => {
      const op = (await gw.services.store.consoleAccounts.findOperatorByUsername('op'))!;
      const c = consoleOf(gw);
      const origin = { remoteAddr: null, requestId: null };
      await c.audit.record({ role: 'cli', id: null }, 'operator.create', 'op-2fa', { totp: true }, origin);
      await c.audit.record({ role: 'cli', id: null }, 'operator.test', 'op-2fa', { totp_secret: 'JBSWY3DP' }, origin);
      const logins = await operator.get('/console/audit?action=login');
      assert.match(logins.body, /operator <span class="mono">op<\/span>/, 'the username');
      assert.ok(!logins.body.includes(op.id), 'not the internal id');
      const created = await operator.get('/console/audit?action=operator.create');
      assert.ok(created.body.includes('{&quot;totp&quot;:true}'), created.body);
      const secret = await operator.get('/console/audit?action=operator.test');
      assert.ok(secret.body.includes('[redacted]') && !secret.body.includes('JBSWY3DP'), 'a secret stays redacted');
    });

    test('merchants cannot post to operator pages', async () => {
      assert.equal(
        (
          await merchantA.post('/console/merchants', {
            csrf: 'x',
            name: 'n',
            payout_currency: 'THB',
            payout_account: '12345678',
          })
        ).status,
        404,
      );
    });
  });
}
