// A control character (NUL above all: PostgreSQL text cannot hold it) in any text field is refused
// with 400 INVALID_FIELD naming the field (docs/api.md "Errors"), on both stores, and nothing is
// written.
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
import { assertErrorBody } from '../../support/error-body.ts';

const INITIATION_FIELDS = [
  'trackid',
  'bill_email',
  'payer_account_name',
  'productdesc',
  'bill_country',
  'bill_customerip',
  'returnUrl',
  'payer_account_no',
];
const SAMPLES: Record<string, (good: string) => string> = {
  NUL: (good) => `${good.slice(0, 2)}\u0000${good.slice(2)}`,
  'escape (ESC)': (good) => `${good}\u001b[31m`,
  newline: (good) => `${good.slice(0, 3)}\n${good.slice(3)}`,
};

for (const { dialect, skip } of await testDialects()) {
  describe(`control characters are refused [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    let serial = 0;
    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
    });
    after(() => gw?.close());

    const countRows = async () =>
      Number(
        (
          await gw.testStore.db
            .selectFrom('transactions')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    for (const field of INITIATION_FIELDS) {
      for (const [name, spoil] of Object.entries(SAMPLES)) {
        test(`initiation: ${name} in ${field} → 400 INVALID_FIELD, nothing stored`, async () => {
          const good = initiationBody(creds, { trackid: `cc-${++serial}`, productdesc: 'Order 1234' });
          const payload = { ...good, [field]: spoil(String(good[field])) };
          const before = await countRows();
          const res = await post(gw, '/transaction/s2s', payload);
          assertErrorBody(res, { status: 400, code: '2002', tag: 'INVALID_FIELD', field });
          assert.match(res.body.error_text, /control characters/);
          assert.equal(await countRows(), before);
        });
      }
    }

    test('a clean body with the same values is accepted (the refusals are about the characters)', async () => {
      const res = await post(
        gw,
        '/transaction/s2s',
        initiationBody(creds, { trackid: `cc-${++serial}`, productdesc: 'Order 1234' }),
      );
      assert.equal(res.status, 200, res.raw);
    });

    test('merchantid with NUL → 400 INVALID_FIELD', async () => {
      const res = await post(gw, '/transaction/status', {
        merchantid: `${creds.merchantid}\u0000`,
        password: creds.password,
        trackid: 'x',
      });
      assertErrorBody(res, { status: 400, code: '2002', tag: 'INVALID_FIELD', field: 'merchantid', shape: 'status' });
    });

    for (const field of ['transactionid', 'trackid']) {
      test(`status query: NUL in ${field} → 400 INVALID_FIELD`, async () => {
        const res = await post(gw, '/transaction/status', {
          merchantid: creds.merchantid,
          password: creds.password,
          [field]: 'abc\u0000def',
        });
        assertErrorBody(res, { status: 400, code: '2002', tag: 'INVALID_FIELD', field, shape: 'status' });
      });
    }

    test('sandbox completion: NUL in transactionid → 400 INVALID_FIELD', async () => {
      const res = await post(gw, '/sandbox/transaction/complete', {
        merchantid: creds.merchantid,
        password: creds.password,
        transactionid: 'abc\u0000def',
      });
      assertErrorBody(res, {
        status: 400,
        code: '2002',
        tag: 'INVALID_FIELD',
        field: 'transactionid',
        shape: 'status',
      });
    });
  });
}
