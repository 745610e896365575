// `attention list | resolve` and `processor attempts` on both stores, through runCli with a capturing
// io, over rows written through the store's ports as the live use cases write them: one JSON object
// with --json, a header row otherwise, exit 0 done / 1 refused / 2 usage, and a resolve audited as
// done by the CLI.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../support/dialects.ts';
import {
  addMerchant,
  startTestGateway,
  TEST_SECRET_KEY_HEX,
  type MerchantCredentials,
  type TestGateway,
} from '../support/test-gateway.ts';
import { startPayment, type Started } from '../support/lifecycle.ts';
import { insertAttempt, raiseAttention, recordNotification } from '../support/processor-rows.ts';
import { runCli } from '../../src/cli/run-cli.ts';
import type { AttentionItem } from '../../src/domain/processor-attempt.ts';

type Run = { code: number; out: string; err: string };

for (const { dialect, skip } of await testDialects()) {
  describe(`attention and processor CLI [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    let paid: Started;
    let quiet: Started;
    let older: AttentionItem;
    let newer: AttentionItem;
    const cli = async (...argv: string[]): Promise<Run> => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(
        argv,
        { out: (t) => out.push(t), err: (t) => err.push(t) },
        { DATABASE_URL: gw.testStore.databaseUrl, GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX },
      );
      return { code, out: out.join('\n'), err: err.join('\n') };
    };

    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw, { id: 'cli-shop' });
      paid = await startPayment(gw, creds, { bill_amount: '100.00' });
      quiet = await startPayment(gw, creds);
      const store = gw.services.store;
      const now = Date.now();
      const qr = await insertAttempt(store, paid.transactionid, {
        reference: 'KBCLIREF000001',
        state: 'paid',
        stateAt: now,
        processorTxnNo: 'KB-778899',
        paidAmountMinor: 1_000_500n,
        paidAt: now,
        expiresAt: now + 600_000,
      });
      await insertAttempt(store, paid.transactionid, {
        reference: 'KBCLIREF000002',
        attempt: 2,
        state: 'failed',
        lastError: 'HTTP 500\tfrom\nthe bank',
      });
      await recordNotification(store, paid.transactionid, {
        reference: qr.reference,
        sourceIp: '203.0.113.77',
        body: '{"txnStatus":"PAID","x":"\u001b[31mred"}',
        receivedAt: now,
      });
      older = await raiseAttention(store, paid.transactionid, {
        kind: 'amount_mismatch',
        amountMinor: 1_000_500n,
        reference: qr.reference,
        createdAt: now - 60_000,
      });
      newer = await raiseAttention(store, quiet.transactionid, { createdAt: now });
    });
    after(() => gw?.close());

    test('attention list: open items newest first, as one JSON object or a table', async () => {
      const json = await cli('attention', 'list', '--json');
      assert.equal(json.code, 0, json.err);
      const parsed = JSON.parse(json.out) as { attention: Array<Record<string, unknown>> };
      assert.deepEqual(Object.keys(parsed), ['attention']);
      assert.deepEqual(
        parsed.attention.map((i) => i.id),
        [newer.id, older.id],
      );
      assert.deepEqual(parsed.attention[1], {
        id: older.id,
        status: 'open',
        transactionid: paid.transactionid,
        kind: 'amount_mismatch',
        detail: older.detail,
        amount: '100.0500',
        reference: 'KBCLIREF000001',
        created_at: new Date(older.createdAt).toISOString(),
        resolved_at: null,
        resolved_by: null,
        resolution: null,
        merchantid: 'cli-shop',
        trackid: paid.trackid,
        currency: 'THB',
      });
      const human = await cli('attention', 'list');
      assert.equal(human.code, 0);
      const lines = human.out.split('\n');
      assert.deepEqual(lines[0]!.split('\t'), [
        'ID',
        'STATUS',
        'KIND',
        'TRANSACTIONID',
        'AMOUNT',
        'REFERENCE',
        'CREATED_AT',
        'RESOLVED_BY',
        'NOTE',
        'DETAIL',
      ]);
      assert.equal(lines.length, 3);
      assert.match(
        lines[2]!,
        new RegExp(`^${older.id}\\topen\\tamount_mismatch\\t${paid.transactionid}\\t100\\.0500 THB\\t`),
      );
    });

    test('attention resolve: audited as the CLI; a second resolve or an unknown id is refused (exit 1)', async () => {
      const done = await cli('attention', 'resolve', newer.id, '--note', 'Transferred back, KBank ref 42', '--json');
      assert.equal(done.code, 0, done.err);
      const item = JSON.parse(done.out) as Record<string, unknown>;
      assert.equal(item.id, newer.id);
      assert.equal(item.status, 'resolved');
      assert.equal(item.resolved_by, 'cli');
      assert.equal(item.resolution, 'Transferred back, KBank ref 42');
      const [entry] = await gw.services.store.consoleAccounts.listAudit({ limit: 1, action: 'attention.resolve' });
      assert.equal(entry?.actorRole, 'cli');
      assert.equal(entry?.actorId, null);
      assert.equal(entry?.target, newer.id);
      assert.deepEqual(entry?.details, {
        transactionid: quiet.transactionid,
        kind: 'paid_after_final',
        reference: null,
        note: 'Transferred back, KBank ref 42',
      });

      const again = await cli('attention', 'resolve', newer.id, '--note', 'again');
      assert.equal(again.code, 1);
      assert.match(again.err, /^Refused: Attention item .* was already resolved by cli; nothing changed\.$/);
      assert.equal((await gw.services.store.attention.find(newer.id))!.resolution, 'Transferred back, KBank ref 42');
      assert.equal(
        (await gw.services.store.consoleAccounts.listAudit({ limit: 10, action: 'attention.resolve' })).length,
        1,
        'nothing audited for the refused one',
      );
      const unknown = await cli('attention', 'resolve', 'att_nothing', '--note', 'x');
      assert.equal(unknown.code, 1);
      assert.match(unknown.err, /No attention item with id 'att_nothing'/);

      const human = await cli('attention', 'resolve', older.id, '--note', 'Merchant refunded the difference');
      assert.equal(human.code, 0);
      assert.equal(human.out, `Attention item ${older.id} (payment ${paid.transactionid}) resolved.`);

      assert.equal((await cli('attention', 'list')).out, 'Nothing needs attention.');
      const all = JSON.parse((await cli('attention', 'list', '--all', '--json')).out) as {
        attention: Array<{ id: string; status: string; resolved_by: string }>;
      };
      assert.deepEqual(
        all.attention.map((i) => [i.id, i.status]),
        [
          [newer.id, 'resolved'],
          [older.id, 'resolved'],
        ],
      );
    });

    test('attention resolve: usage errors exit 2 and change nothing', async () => {
      const item = await raiseAttention(gw.services.store, quiet.transactionid, { kind: 'amount_mismatch' });
      for (const argv of [
        ['attention', 'resolve', item.id],
        ['attention', 'resolve', item.id, '--note', '   '],
        ['attention', 'resolve', '--note', 'no id'],
        ['attention', 'resolve', item.id, 'extra', '--note', 'x'],
        ['attention', 'list', '--open'],
      ]) {
        const run = await cli(...argv);
        assert.equal(run.code, 2, `${argv.join(' ')}: ${run.err}`);
        assert.equal(run.out, '');
        assert.match(run.err, /Usage: npm run -s gateway -- attention (resolve|list)/);
      }
      assert.equal((await gw.services.store.attention.find(item.id))!.resolvedAt, null);
      await gw.services.store.attention.resolve(item.id, 'test', 'cleanup', Date.now());
    });

    test('processor attempts: the attempts, the notifications and the items of one payment', async () => {
      const json = await cli('processor', 'attempts', paid.transactionid.toUpperCase(), '--json');
      assert.equal(json.code, 0, json.err);
      const result = JSON.parse(json.out) as {
        transactionid: string;
        attempts: Array<Record<string, unknown>>;
        notifications: Array<Record<string, unknown>>;
        attention: Array<Record<string, unknown>>;
      };
      assert.deepEqual(Object.keys(result), [
        'transactionid',
        'merchantid',
        'trackid',
        'status',
        'payer_check',
        'attempts',
        'notifications',
        'attention',
      ]);
      assert.equal(result.transactionid, paid.transactionid);
      assert.deepEqual(
        result.attempts.map((a) => [a.reference, a.kind, a.attempt, a.state]),
        [
          ['KBCLIREF000001', 'qr', 1, 'paid'],
          ['KBCLIREF000002', 'qr', 2, 'failed'],
        ],
      );
      assert.equal(result.attempts[0]!.paid_amount, '100.0500');
      assert.equal(result.attempts[0]!.processor_txn_no, 'KB-778899');
      assert.equal(result.attempts[1]!.last_error, 'HTTP 500\tfrom\nthe bank');
      assert.equal(result.notifications.length, 1);
      assert.equal(result.notifications[0]!.source_ip, '203.0.113.77');
      assert.equal(result.notifications[0]!.body, '{"txnStatus":"PAID","x":"\u001b[31mred"}', 'the body as received');
      assert.deepEqual(
        result.attention.map((i) => i.id),
        [older.id],
      );

      const human = await cli('processor', 'attempts', paid.transactionid);
      assert.equal(human.code, 0);
      const lines = human.out.split('\n');
      assert.match(
        lines[0]!,
        new RegExp(`^Payment ${paid.transactionid} \\(cli-shop, trackid ${paid.trackid}\\): PROCESSING$`),
      );
      assert.ok(
        lines.includes('KIND\tATTEMPT\tREFERENCE\tSTATE\tSTATE_AT\tPROCESSOR_TXN_NO\tPAID\tQR_EXPIRES_AT\tLAST_ERROR'),
      );
      assert.ok(
        lines.some((l) => l.startsWith('qr\t2\tKBCLIREF000002\tfailed\t') && l.endsWith('\tHTTP 500 from the bank')),
      );
      assert.ok(lines.includes('RECEIVED_AT\tSOURCE_IP\tOUTCOME\tREFERENCE\tBODY'));
      assert.ok(!human.out.includes('\u001b'), 'no control character from the processor reaches the terminal');
      assert.ok(human.out.includes(String.raw`"{\"txnStatus\":\"PAID\",\"x\":\"\u001b[31mred\"}"`));

      const none = await cli('processor', 'attempts', quiet.transactionid);
      assert.equal(none.code, 0);
      assert.ok(
        none.out.includes('No attempts at the processor.') && none.out.includes('No notifications from the processor.'),
      );
      const unknown = await cli('processor', 'attempts', '01890000-0000-7000-8000-000000000000', '--json');
      assert.equal(unknown.code, 1);
      assert.equal(unknown.out, '');
      assert.match(unknown.err, /^Refused: No payment with transactionid/);
      assert.equal((await cli('processor', 'attempts')).code, 2);
    });
  });
}
