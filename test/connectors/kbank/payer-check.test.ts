// The payer check on a live gateway, on both stores (docs/api.md "Payer check", docs/console.md
// "Needs attention", docs/operations.md "Payer check"): the real gateway taking KBank payments
// against kbank-sim (test/support/live-gateway.ts). KBank reports no payer, so its own answers give
// `unknown`; the processor's answer with a reported payer (what an SCB-like connector returns) is
// built here from KBank's real answer and handed to the unit under test, SyncPayment, as the
// processor's input. Proves:
//   - the verdict is stored with the completion and shown in the status answer and the notification;
//   - `record`: a mismatched payment completes as before, its verdict recorded;
//   - `hold`: a mismatched payment stays PROCESSING with an open payer_mismatch item (masked detail),
//     and no later sync, reconciler round, sweep, close-on-expiry or page view ends it; the operator's
//     accept (console) completes it as SUCCESS with its notification and ledger entry, the decline
//     (CLI) fails it as DECLINED, never voided behind that decision;
//   - the console shows the verdict; the console and the CLI set the merchant's payer_mismatch.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ExpirySweeper } from '../../../src/app/expiry-sweeper.ts';
import type { ProcessorPaymentStatus, ReportedPayer } from '../../../src/app/ports/processor.ts';
import { runCli } from '../../../src/cli/run-cli.ts';
import { planCompletion } from '../../../src/domain/completion.ts';
import { newEventId } from '../../../src/domain/ids.ts';
import { testDialects } from '../../support/dialects.ts';
import { ConsoleClient, consoleOf, OPERATOR_PASSWORD } from '../../support/console-client.ts';
import { payoutBalance, snapshot, type Started } from '../../support/lifecycle.ts';
import { expirySweeperOf, startLiveGateway, type LiveGateway } from '../../support/live-gateway.ts';
import { post, TEST_SECRET_KEY_HEX } from '../../support/test-gateway.ts';

const MINUTE = 60_000;
/** The payer string-amount.json names: account 0987654321 at KBank (004). */
const NAMED_ACCOUNT = '0987654321';
const MATCHING: ReportedPayer = { bankCode: '004', accountNumber: 'xxx-x-x5432-x', name: 'MALEE S' };
const OTHER_BANK: ReportedPayer = { bankCode: '014', accountNumber: '098-7-65432-1', name: 'SOMCHAI J' };
const VOID = '/v1/qrpayment/void';

for (const { dialect, skip } of await testDialects()) {
  describe(`payer check [${dialect}]`, { skip }, () => {
    let gw: LiveGateway;
    let sweeper: ExpirySweeper;
    let operator: ConsoleClient;

    before(async () => {
      gw = await startLiveGateway(dialect);
      sweeper = expirySweeperOf(gw);
      await consoleOf(gw).accounts.createOperator({ username: 'op', password: OPERATOR_PASSWORD, totp: false });
      operator = new ConsoleClient(gw.app);
      assert.equal((await operator.login('operator', 'op', OPERATOR_PASSWORD)).status, 303);
    });
    after(async () => {
      await gw?.close();
    });

    const merchantId = () => gw.creds.merchantid;
    const setPolicy = (policy: 'record' | 'hold') => gw.services.manageMerchants.setPayerMismatch(merchantId(), policy);
    const cli = async (...argv: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(
        argv,
        { out: (t) => out.push(t), err: (t) => err.push(t) },
        { DATABASE_URL: gw.testStore.databaseUrl, GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX },
      );
      return { code, out: out.join('\n'), err: err.join('\n') };
    };

    /** A QR paid at the bank (KBank's callback held back), and the bank's answer with `payer`. */
    async function paidWith(payer: ReportedPayer | null) {
      const { p, uid } = await gw.startShown();
      const callback = await gw.pay(uid);
      const status: ProcessorPaymentStatus = {
        ...(await gw.services.processor.connector().queryPayment(uid, Date.now())), // KBank ignores the date
        payer,
      };
      assert.equal(status.state, 'paid');
      return { p, uid, status, callback };
    }
    /** SyncPayment with the processor's answer, as the reconciler, a notification or the page would apply it. */
    const sync = async (p: Started, status: ProcessorPaymentStatus) => {
      const attempt = (await gw.attempts(p))[0]!;
      return gw.services.processor.sync.applyTo(await gw.transaction(p), attempt, status);
    };
    const statusAnswer = async (p: Started) => {
      const res = await post(gw, '/transaction/status', {
        merchantid: gw.creds.merchantid,
        password: gw.creds.password,
        transactionid: p.transactionid,
      });
      assert.equal(res.status, 200, res.raw);
      return { body: res.body, raw: res.raw };
    };
    const notifications = async (p: Started) =>
      (await snapshot(gw, p.transactionid)).outbox.map((o) => JSON.parse(o.payload) as Record<string, unknown>);
    const openItems = async (p: Started) =>
      (await gw.services.store.attention.forTransaction(p.transactionid)).filter((i) => i.resolvedAt === null);

    test('KBank reports no payer: `unknown` with the completion, in the answer and the notification', async () => {
      await setPolicy('hold');
      const { p, callback } = await paidWith(null);
      assert.equal((await gw.transaction(p)).payerCheck, null, 'no verdict before the processor reported the payment');
      assert.ok(!(await statusAnswer(p)).raw.includes('payer_check'), 'absent until there is a verdict');
      assert.equal((await gw.callback(callback)).status, 200);
      await gw.reconcile();
      const t = await gw.transaction(p);
      assert.deepEqual([t.status, t.payerCheck], ['SUCCESS', 'unknown']);
      assert.equal((await statusAnswer(p)).body.payer_check, 'unknown');
      const [notification, ...more] = await notifications(p);
      assert.equal(more.length, 0);
      assert.equal(notification!.payer_check, 'unknown');
      assert.equal(notification!.result, 'CAPTURED');
      assert.deepEqual(await openItems(p), [], 'unknown never holds');
    });

    test('a matching payer: `matched` with the completion, in the answer and the notification', async () => {
      await setPolicy('hold');
      const before = await payoutBalance(gw, merchantId());
      const { p, status } = await paidWith(MATCHING);
      assert.equal(await sync(p, status), 'completed');
      const t = await gw.transaction(p);
      assert.deepEqual([t.status, t.payerCheck], ['SUCCESS', 'matched']);
      const answer = await statusAnswer(p);
      assert.equal(answer.body.payer_check, 'matched');
      assert.ok(!answer.raw.includes('MALEE') && !answer.raw.includes('5432'), 'the verdict only, no payer data');
      const [notification] = await notifications(p);
      assert.equal(notification!.payer_check, 'matched');
      assert.ok(!JSON.stringify(notification).includes('MALEE'));
      assert.ok((await payoutBalance(gw, merchantId())) > before, 'credited');

      // The merchant's console shows the verdict too (and still nothing of the processor's).
      const password = (await consoleOf(gw).accounts.issueMerchantPassword(merchantId())).password;
      const merchant = new ConsoleClient(gw.app);
      assert.equal((await merchant.login('merchant', merchantId(), password)).status, 303);
      const page = await merchant.get(`/console/payments/${p.transactionid}?lang=en`);
      assert.equal(page.status, 200);
      assert.match(page.body, /id="payer-check">matched</);
      assert.ok(!page.body.includes('MALEE S') && !page.body.includes('id="processor"'));
    });

    test('`record`: a mismatched payer completes as before, the verdict recorded', async () => {
      await setPolicy('record');
      const before = await payoutBalance(gw, merchantId());
      const { p, status } = await paidWith(OTHER_BANK);
      assert.equal(await sync(p, status), 'completed');
      const snap = await snapshot(gw, p.transactionid);
      assert.deepEqual(
        snap.transitions.map((t) => [t.toStatus, t.cause]),
        [['SUCCESS', 'processor_paid']],
      );
      assert.equal(snap.entries.length, 1);
      assert.equal((await gw.transaction(p)).payerCheck, 'mismatched');
      assert.equal((await statusAnswer(p)).body.payer_check, 'mismatched');
      assert.equal((await notifications(p))[0]!.payer_check, 'mismatched');
      assert.deepEqual(await openItems(p), []);
      assert.ok((await payoutBalance(gw, merchantId())) > before);
    });

    test(
      '`hold`: a mismatched payment stays PROCESSING with an item nothing else ends; the operator accepts it ' +
        'in the console: SUCCESS, notification, ledger, audit',
      async () => {
        await setPolicy('hold');
        const { p, uid, status, callback } = await paidWith(OTHER_BANK);
        assert.equal(await sync(p, status), 'held');
        const held = await gw.transaction(p);
        assert.deepEqual([held.status, held.payerCheck], ['PROCESSING', 'mismatched']);
        const [item, ...others] = await openItems(p);
        assert.equal(others.length, 0);
        assert.equal(item!.kind, 'payer_mismatch');
        assert.equal(item!.reference, uid);
        assert.match(item!.detail, /bank 014 reported, 004 named/);
        assert.match(item!.detail, /name reported: SOMCHAI J/);
        assert.ok(!item!.detail.includes(NAMED_ACCOUNT) && !item!.detail.includes('098-7-65432-1'), item!.detail);
        assert.deepEqual(await notifications(p), [], 'no notification while held');
        const answer = await statusAnswer(p);
        assert.deepEqual([answer.body.result, answer.body.payer_check], ['Processing', 'mismatched']);

        // Nothing else ends it: another sync, KBank's callback and the reconciler, the deadline's sweep,
        // close-on-expiry and the hosted page's lazy expiry.
        assert.equal(await sync(p, { ...status, payer: MATCHING }), 'held', 'a later answer does not undo the hold');
        assert.equal((await gw.callback(callback)).status, 200);
        await gw.reconcile();
        gw.advance(11 * MINUTE);
        await sweeper.sweepOnce();
        await assert.rejects(gw.services.processor.end.expire(p.transactionid), { tag: 'INVALID_STATE' });
        const page = await gw.app.inject({ method: 'GET', url: `/transaction/Redirect?ID=${p.redirectId}` });
        assert.equal(page.statusCode, 200);
        assert.equal((await gw.transaction(p)).status, 'PROCESSING');
        assert.equal((await openItems(p)).length, 1, 'still the one item');
        assert.deepEqual(await notifications(p), []);
        assert.equal(gw.bankCalls(VOID, uid), 0, 'never voided');

        // The console shows the verdict, and the operator the item with its two decisions.
        const detail = await operator.get(`/console/payments/${p.transactionid}?lang=en`);
        assert.match(detail.body, /id="payer-check">mismatched</);
        assert.ok(detail.body.includes('held for an operator'));
        assert.match(detail.body, /paid by another payer/);
        const list = await operator.get('/console/attention?lang=en');
        assert.ok(list.body.includes(`action="/console/attention/${item!.id}/resolve"`));
        assert.ok(list.body.includes('name="decision" value="accept"') && list.body.includes('value="decline"'));

        const noDecision = await operator.post(`/console/attention/${item!.id}/resolve`, {
          csrf: operator.csrf(),
          note: 'checked with the merchant',
        });
        assert.equal(noDecision.status, 400, 'a held payment needs a decision');
        assert.match(noDecision.body, /decision/);
        assert.equal((await gw.transaction(p)).status, 'PROCESSING');

        const before = await payoutBalance(gw, merchantId());
        await operator.get('/console/attention?lang=en');
        const done = await operator.post(`/console/attention/${item!.id}/resolve`, {
          csrf: operator.csrf(),
          note: 'the buyer paid from her husband’s account',
          decision: 'accept',
        });
        assert.equal(done.status, 303, done.body);
        assert.equal(done.location, `/console/attention?done=accept&item=${item!.id}`);
        const snap = await snapshot(gw, p.transactionid);
        assert.equal(snap.status, 'SUCCESS');
        assert.deepEqual(
          snap.transitions.map((t) => [t.toStatus, t.cause]),
          [['SUCCESS', 'payer_accepted']],
        );
        assert.equal(snap.entries.length, 1, 'one ledger entry');
        assert.ok((await payoutBalance(gw, merchantId())) > before, 'credited');
        const [notification, ...more] = await notifications(p);
        assert.equal(more.length, 0);
        assert.deepEqual([notification!.result, notification!.payer_check], ['CAPTURED', 'mismatched']);
        const resolved = (await gw.services.store.attention.find(item!.id))!;
        assert.equal(resolved.resolvedBy, 'operator:op');
        assert.equal(resolved.resolution, 'accepted: the buyer paid from her husband’s account');
        const [audit] = await gw.services.store.consoleAccounts.listAudit({ limit: 1, action: 'attention.resolve' });
        assert.equal(audit?.target, item!.id);
        assert.equal((audit?.details as Record<string, unknown>).decision, 'accept');

        // Settled: the processor's answer again changes nothing.
        assert.equal(await sync(p, status), 'unchanged');
        assert.equal((await notifications(p)).length, 1);
        assert.equal((await snapshot(gw, p.transactionid)).entries.length, 1);
        await operator.get(`/console/payments/${p.transactionid}`); // a page with a form token
        const again = await operator.post(`/console/attention/${item!.id}/resolve`, {
          csrf: operator.csrf(),
          note: 'again',
          decision: 'decline',
        });
        assert.equal(again.status, 409, 'resolved already: nothing changes');
        assert.equal((await gw.transaction(p)).status, 'SUCCESS');
      },
    );

    test('`hold`, declined with the CLI: FAILED/DECLINED, notified, no ledger entry, never voided after', async () => {
      await setPolicy('hold');
      const before = await payoutBalance(gw, merchantId());
      // The right bank, the last four digits reversed: every visible digit differs from ours (…4321).
      const { p, uid, status } = await paidWith({ bankCode: '004', accountNumber: 'xxxxxx1234', name: null });
      assert.equal(await sync(p, status), 'held');
      const [item] = await openItems(p);
      assert.match(item!.detail, /4 visible digits differ at places 1, 2, 3, 4 from the right/);
      assert.ok(!item!.detail.includes('name reported'));

      const usage = await cli('attention', 'resolve', item!.id, '--note', 'x', '--decision', 'maybe');
      assert.equal(usage.code, 2, usage.err);
      const declined = await cli(
        'attention',
        'resolve',
        item!.id,
        '--note',
        'not the buyer; returned by transfer',
        '--decision',
        'decline',
      );
      assert.equal(declined.code, 0, declined.err);
      assert.match(declined.out, /declined \(FAILED\); return the payer's money by bank transfer/);
      const t = await gw.transaction(p);
      assert.deepEqual([t.status, t.errorCodeTag, t.payerCheck], ['FAILED', 'DECLINED', 'mismatched']);
      const snap = await snapshot(gw, p.transactionid);
      assert.deepEqual(
        snap.transitions.map((x) => [x.toStatus, x.cause]),
        [['FAILED', 'payer_declined']],
      );
      assert.equal(snap.entries.length, 0, 'no ledger entry');
      assert.equal(await payoutBalance(gw, merchantId()), before);
      const [notification] = await notifications(p);
      assert.deepEqual(
        [notification!.result, notification!.error_code_tag, notification!.payer_check],
        ['Not Successful', 'DECLINED', 'mismatched'],
      );
      const resolved = (await gw.services.store.attention.find(item!.id))!;
      assert.equal(resolved.resolvedBy, 'cli');
      assert.match(resolved.resolution!, /returned by bank transfer — not the buyer; returned by transfer$/);

      // The bank still says paid: no void, no new item behind the operator's decision.
      assert.equal(await sync(p, status), 'unchanged');
      assert.equal(gw.bankCalls(VOID, uid), 0);
      assert.deepEqual(await openItems(p), []);
      assert.equal((await notifications(p)).length, 1);
    });

    test('a completion planned before the hold writes nothing after it (conditional on the verdict)', async () => {
      const p = await gw.start();
      const { completions } = gw.services.store;
      const input = await completions.readForCompletion(p.transactionid);
      const plan = planCompletion(input, {
        transactionId: p.transactionid,
        cause: 'cancel',
        eventId: newEventId(),
        at: gw.clock.now,
      });
      assert.equal(await completions.holdForPayer(p.transactionid, 'mismatched'), true);
      assert.equal(await completions.holdForPayer(p.transactionid, 'mismatched'), false, 'held once');
      assert.equal(await completions.write(plan), false, 'the plan read no verdict: nothing written');
      const t = await gw.transaction(p);
      assert.deepEqual([t.status, t.payerCheck], ['PROCESSING', 'mismatched']);
      assert.deepEqual(await notifications(p), []);
      assert.throws(
        () =>
          planCompletion(
            { record: t, feeRatePpm: 0n },
            { transactionId: t.id, cause: 'expire', eventId: newEventId(), at: t.expiresAt },
          ),
        { tag: 'INVALID_STATE' },
        'a held payment is ended by a payer decision only',
      );
    });

    test('other items take no decision; a payer_mismatch item needs one (CLI)', async () => {
      await setPolicy('hold');
      const { p, status } = await paidWith(OTHER_BANK);
      assert.equal(await sync(p, status), 'held');
      const [item] = await openItems(p);
      const missing = await cli('attention', 'resolve', item!.id, '--note', 'looked');
      assert.equal(missing.code, 1);
      assert.match(missing.err, /decision/);
      assert.equal((await gw.transaction(p)).status, 'PROCESSING');
      const accepted = await cli('attention', 'resolve', item!.id, '--note', 'fine', '--decision', 'accept', '--json');
      assert.equal(accepted.code, 0, accepted.err);
      assert.equal(JSON.parse(accepted.out).resolution, 'accepted: fine');
      assert.equal((await gw.transaction(p)).status, 'SUCCESS');
    });

    test("the merchant's payer_mismatch: CLI create and update, console form (CSRF, audited)", async () => {
      const created = await cli(
        'merchant',
        'create',
        '--name',
        'Hold Shop',
        '--payout-currency',
        'THB',
        '--payout-account',
        '1234567890',
        '--id',
        'hold-shop',
        '--payer-mismatch',
        'hold',
        '--json',
      );
      assert.equal(created.code, 0, created.err);
      const stored = () => gw.services.store.merchants.findById('hold-shop');
      assert.equal((await stored())?.payerMismatch, 'hold');
      const updated = await cli('merchant', 'update', 'hold-shop', '--payer-mismatch', 'record', '--json');
      assert.equal(updated.code, 0, updated.err);
      assert.deepEqual(JSON.parse(updated.out), { merchantid: 'hold-shop', payer_mismatch: 'record' });
      assert.equal((await stored())?.payerMismatch, 'record');
      const wrong = await cli('merchant', 'update', 'hold-shop', '--payer-mismatch', 'ignore');
      assert.equal(wrong.code, 1);
      assert.match(wrong.err, /payer-mismatch/);
      const listed = JSON.parse((await cli('merchant', 'list', '--json')).out) as {
        merchants: Array<{ merchantid: string; payer_mismatch: string }>;
      };
      assert.equal(listed.merchants.find((m) => m.merchantid === 'hold-shop')?.payer_mismatch, 'record');

      const page = await operator.get('/console/merchants?lang=en');
      assert.ok(page.body.includes('action="/console/merchants/hold-shop/payer-mismatch"'));
      const forged = await operator.post('/console/merchants/hold-shop/payer-mismatch', {
        csrf: 'forged',
        payer_mismatch: 'hold',
      });
      assert.equal(forged.status, 403);
      assert.equal((await stored())?.payerMismatch, 'record');
      await operator.get('/console/merchants?lang=en');
      const set = await operator.post('/console/merchants/hold-shop/payer-mismatch', {
        csrf: operator.csrf(),
        payer_mismatch: 'hold',
      });
      assert.equal(set.status, 200, set.body);
      assert.ok(set.body.includes('hold-shop → hold for an operator'));
      assert.equal((await stored())?.payerMismatch, 'hold');
      const [audit] = await gw.services.store.consoleAccounts.listAudit({
        limit: 1,
        action: 'merchant.payer_mismatch',
      });
      assert.deepEqual([audit?.target, audit?.details], ['hold-shop', { payer_mismatch: 'hold' }]);
    });
  });
}
