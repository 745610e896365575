// The payer check end to end on SCB, on both stores (docs/api.md "Payer check",
// docs/connectors/scb.md): the customer pays the QR at scb-sim from an account of its choosing,
// SCB's confirmation reaches the gateway's route, the gateway's inquiry reports who paid, and the
// verdict shows in the status answer, the result notification and the console:
//   - the payer the merchant named (SCB, the same account, reported masked) → `matched`;
//   - another account at the same bank, or the same digits at another bank → `mismatched`
//     (`record`: it completes all the same);
//   - `hold`: a mismatched payment stays PROCESSING on the needs-attention list.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../../support/dialects.ts';
import { ConsoleClient, consoleOf, OPERATOR_PASSWORD } from '../../support/console-client.ts';
import { snapshot } from '../../support/lifecycle.ts';
import type { Started } from '../../support/lifecycle.ts';
import { startLiveScbGateway, type LiveScbGateway } from '../../support/live-gateway.ts';
import { post } from '../../support/test-gateway.ts';

/** The payer every payment here names: account 1502830001 at SCB (014). */
const NAMED = { payer_account_no: '1502830001', payer_bank_code: 'SCB', payer_account_name: 'Somchai Jaidee' };

for (const { dialect, skip } of await testDialects()) {
  describe(`SCB payer check end to end [${dialect}]`, { skip }, () => {
    let gw: LiveScbGateway;
    let operator: ConsoleClient;

    before(async () => {
      gw = await startLiveScbGateway(dialect);
      await consoleOf(gw).accounts.createOperator({ username: 'op', password: OPERATOR_PASSWORD, totp: false });
      operator = new ConsoleClient(gw.app);
      assert.equal((await operator.login('operator', 'op', OPERATOR_PASSWORD)).status, 303);
    });
    after(async () => {
      await gw?.close();
    });

    const setPolicy = (policy: 'record' | 'hold') =>
      gw.services.manageMerchants.setPayerMismatch(gw.creds.merchantid, policy);

    /** A payment naming NAMED, paid at scb-sim as `payer` says, its confirmation sent to the gateway. */
    async function paidBy(payer: { payerAccountNumber: string; sendingBankCode: string; maskPayer?: boolean }) {
      const { p, uid } = await gw.startShown(NAMED);
      const confirmation = await gw.pay(uid, { payerName: 'SOMCHAI J', ...payer });
      assert.equal((await gw.confirm(confirmation)).status, 200);
      await gw.reconcile();
      return p;
    }
    const statusAnswer = async (p: Started) => {
      const res = await post(gw, '/transaction/status', {
        merchantid: gw.creds.merchantid,
        password: gw.creds.password,
        transactionid: p.transactionid,
      });
      assert.equal(res.status, 200, res.raw);
      return res.body as Record<string, unknown>;
    };
    const notification = async (p: Started) => {
      const outbox = (await snapshot(gw, p.transactionid)).outbox;
      assert.equal(outbox.length, 1, 'one result notification');
      return JSON.parse(outbox[0]!.payload) as Record<string, unknown>;
    };
    const consoleVerdict = async (p: Started) => {
      const page = await operator.get(`/console/payments/${p.transactionid}?lang=en`);
      assert.equal(page.status, 200);
      return /id="payer-check">(\w+)</.exec(page.body)?.[1];
    };

    test('paid from the account the merchant named (reported masked): matched everywhere', async () => {
      await setPolicy('hold');
      const p = await paidBy({ payerAccountNumber: '1502830001', sendingBankCode: '014', maskPayer: true });
      assert.equal((await gw.transaction(p)).status, 'SUCCESS');
      const answer = await statusAnswer(p);
      assert.deepEqual([answer.result, answer.payer_check], ['CAPTURED', 'matched']);
      const body = await notification(p);
      assert.deepEqual([body.result, body.payer_check], ['CAPTURED', 'matched']);
      assert.ok(!JSON.stringify(body).includes('SOMCHAI J'), 'the verdict only, not the payer SCB reported');
      assert.equal(await consoleVerdict(p), 'matched');
    });

    test('paid from another account at the same bank: mismatched, completed under `record`', async () => {
      await setPolicy('record');
      const p = await paidBy({ payerAccountNumber: '1502830009', sendingBankCode: '014' });
      assert.equal((await gw.transaction(p)).status, 'SUCCESS');
      assert.equal((await statusAnswer(p)).payer_check, 'mismatched');
      const body = await notification(p);
      assert.deepEqual([body.result, body.payer_check], ['CAPTURED', 'mismatched']);
      assert.equal(await consoleVerdict(p), 'mismatched');
    });

    test('the same digits at another bank: mismatched; under `hold` the payment waits for an operator', async () => {
      await setPolicy('hold');
      const p = await paidBy({ payerAccountNumber: '1502830001', sendingBankCode: '004' });
      const answer = await statusAnswer(p);
      assert.deepEqual([answer.result, answer.payer_check], ['Processing', 'mismatched']);
      assert.equal((await snapshot(gw, p.transactionid)).outbox.length, 0, 'no result notification while held');
      const items = await gw.services.store.attention.forTransaction(p.transactionid);
      assert.deepEqual(
        items.map((i) => [i.kind, i.resolvedAt]),
        [['payer_mismatch', null]],
      );
      assert.equal(await consoleVerdict(p), 'mismatched');
      const list = await operator.get('/console/attention?lang=en');
      assert.ok(list.body.includes(p.transactionid), 'on the needs-attention page');
    });
  });
}
