// bill_amount is money: whatever a merchant sends — a numeric string or a JSON number, in any
// spelling docs/api.md "Initiation" allows — is read exactly, stored exactly and printed back
// exactly. The oracle is built from whole cents by string operations only, independently of
// money.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { validateInitiation } from '../../src/domain/initiation-request.ts';
import { isGatewayError } from '../../src/domain/errors.ts';
import { testDialects } from '../support/dialects.ts';
import {
  addMerchant,
  initiationBody,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../support/test-gateway.ts';

const MIN_CENTS = 10_000n; // 100.00 THB
const MAX_CENTS = 200_000_000n; // 2,000,000.00 THB

/** A valid amount as cents plus the canonical text the gateway must print for it. */
type Amount = { cents: bigint; canonical: string };

const amountArb: fc.Arbitrary<Amount> = fc
  .oneof(
    fc.bigInt({ min: MIN_CENTS, max: MAX_CENTS }),
    fc.constantFrom(MIN_CENTS, MAX_CENTS, 99_999_900n, 1_000_000n, 1_000_001n, 15_050n), // the edges
  )
  .map((cents) => {
    const whole = (cents / 100n).toString();
    const fraction = (cents % 100n).toString().padStart(2, '0');
    return { cents, canonical: `${whole}.${fraction}` };
  });

/** Spellings of one amount as a JSON string: leading zeros, trailing zeros, no fraction when whole. */
function stringSpelling(a: Amount, leadingZeros: number, trailingZeros: number, dropFraction: boolean): string {
  const [whole = '', fraction = ''] = a.canonical.split('.');
  const trimmed = fraction.replace(/0+$/, '');
  const body = dropFraction && trimmed === '' ? whole : `${whole}.${fraction}${'0'.repeat(trailingZeros)}`;
  return '0'.repeat(leadingZeros) + body;
}

/** Spellings of one amount as a JSON number literal: plain, integer, or with an exponent. */
function numberSpelling(a: Amount, form: 'plain' | 'short' | 'cents-exponent' | 'scientific'): string {
  const [whole = '', fraction = ''] = a.canonical.split('.');
  const digits = whole + fraction; // the amount in cents, as digits
  switch (form) {
    case 'plain':
      return `${whole}.${fraction}`; // 150.00 stays "150.00" on the wire, like PHP's 150.0
    case 'short': {
      const trimmed = fraction.replace(/0+$/, '');
      return trimmed === '' ? whole : `${whole}.${trimmed}`;
    }
    case 'cents-exponent':
      return `${digits}e-2`;
    case 'scientific':
      // d.ddddE+k with k = number of whole digits − 1
      return `${digits[0]}.${digits.slice(1)}E+${whole.length - 1}`;
  }
}

/** An amount with 3 to 8 significant fraction digits (the last one non-zero), 100 ≤ amount < 2,000,000. */
const tooPreciseArb = fc
  .record({
    whole: fc.integer({ min: 100, max: 1_999_999 }),
    fraction: fc.integer({ min: 3, max: 8 }).chain((len) => fc.stringMatching(new RegExp(`^\\d{${len - 1}}[1-9]$`))),
  })
  .map(({ whole, fraction }) => `${whole}.${fraction}`);

const limits = {
  minAmountMinor: MIN_CENTS * 100n,
  maxAmountMinor: MAX_CENTS * 100n,
  checkServerUrl: () => undefined,
};
const creds = { merchantid: 'M1', password: 'p' };

describe('bill_amount through the validation rules (no store)', () => {
  test('property: every allowed string spelling is read as exactly its cents', () => {
    fc.assert(
      fc.property(amountArb, fc.nat(3), fc.nat(3), fc.boolean(), (a, lead, trail, drop) => {
        const input = validateInitiation(
          initiationBody(creds, { bill_amount: stringSpelling(a, lead, trail, drop) }),
          limits,
        );
        assert.equal(input.amountMinor, a.cents * 100n);
      }),
      { numRuns: 3000 },
    );
  });

  test('property: every JSON number spelling is read as exactly its cents', () => {
    const forms = fc.constantFrom('plain', 'short', 'cents-exponent', 'scientific' as const);
    fc.assert(
      fc.property(amountArb, forms, (a, form) => {
        const body = JSON.parse(`{"bill_amount":${numberSpelling(a, form)}}`) as Record<string, unknown>;
        assert.equal(typeof body.bill_amount, 'number');
        const input = validateInitiation(initiationBody(creds, body), limits);
        assert.equal(input.amountMinor, a.cents * 100n);
      }),
      { numRuns: 3000 },
    );
  });

  test('property: more than two significant fraction digits is never accepted, as string or number', () => {
    fc.assert(
      fc.property(tooPreciseArb, fc.boolean(), (text, asNumber) => {
        const body = JSON.parse(`{"bill_amount":${asNumber ? text : JSON.stringify(text)}}`) as Record<string, unknown>;
        assert.throws(
          () => validateInitiation(initiationBody(creds, body), limits),
          (e: unknown) => isGatewayError(e) && e.tag === 'INVALID_FIELD' && e.message.includes("'bill_amount'"),
        );
      }),
      { numRuns: 3000 },
    );
  });

  test('property: a string that is not plain digits with an optional fraction is never an amount', () => {
    const plain = /^\d+(\.\d+)?$/;
    const noise = fc.oneof(
      fc.string({ unit: fc.constantFrom(...'0123456789.+-eE ,_\t\n١๑１x'), minLength: 1, maxLength: 12 }),
      fc.string({ minLength: 1, maxLength: 12 }),
      amountArb.chain((a) =>
        fc.constantFrom(
          ` ${a.canonical}`,
          `${a.canonical} `,
          `+${a.canonical}`,
          `-${a.canonical}`,
          `${a.canonical}e0`,
          `${a.canonical}.`,
        ),
      ),
    );
    fc.assert(
      fc.property(
        noise.filter((s) => !plain.test(s) && s.trim() !== ''),
        (text) => {
          assert.throws(
            () => validateInitiation(initiationBody(creds, { bill_amount: text }), limits),
            (e: unknown) => isGatewayError(e) && e.tag === 'INVALID_FIELD' && e.message.includes("'bill_amount'"),
          );
        },
      ),
      { numRuns: 3000 },
    );
  });
});

for (const { dialect, skip } of await testDialects()) {
  describe(`bill_amount parse → store → print round trip [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let merchant: MerchantCredentials;
    let serial = 0;
    const nextTrackid = () => `amount-${++serial}`;
    const countRows = async () =>
      Number(
        (
          await gw.testStore.db
            .selectFrom('transactions')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    before(async () => {
      gw = await startTestGateway(dialect);
      merchant = await addMerchant(gw);
    });
    after(() => gw?.close());

    /** Sends `amountJson` verbatim as the bill_amount token of the raw JSON body. */
    async function initiateRaw(amountJson: string) {
      const body = initiationBody(merchant, { trackid: nextTrackid(), bill_amount: '__AMOUNT__' });
      return post(gw, '/transaction/s2s', JSON.stringify(body).replace('"__AMOUNT__"', amountJson));
    }

    async function printedAmount(transactionid: string): Promise<unknown> {
      const status = await post(gw, '/transaction/status', {
        merchantid: merchant.merchantid,
        password: merchant.password,
        transactionid,
      });
      assert.equal(status.status, 200);
      return status.body.bill_amount;
    }

    test('property: a string amount comes back from /transaction/status digit for digit', async () => {
      await fc.assert(
        fc.asyncProperty(amountArb, fc.nat(2), fc.nat(2), fc.boolean(), async (a, lead, trail, drop) => {
          const res = await initiateRaw(JSON.stringify(stringSpelling(a, lead, trail, drop)));
          assert.equal(res.status, 200, res.raw);
          assert.equal(await printedAmount(res.body.transactionid), a.canonical);
        }),
        { numRuns: 300 },
      );
    });

    test('property: a JSON number amount (plain or exponent form) comes back digit for digit', async () => {
      const forms = fc.constantFrom('plain', 'short', 'cents-exponent', 'scientific' as const);
      await fc.assert(
        fc.asyncProperty(amountArb, forms, async (a, form) => {
          const res = await initiateRaw(numberSpelling(a, form));
          assert.equal(res.status, 200, res.raw);
          assert.equal(await printedAmount(res.body.transactionid), a.canonical);
        }),
        { numRuns: 300 },
      );
    });

    test('property: too many fraction digits is refused over HTTP and stores nothing', async () => {
      await fc.assert(
        fc.asyncProperty(tooPreciseArb, fc.boolean(), async (text, asNumber) => {
          const before = await countRows();
          const res = await initiateRaw(asNumber ? text : JSON.stringify(text));
          assert.equal(res.status, 400);
          assert.equal(res.body.responsecode, '2002');
          assert.equal(res.body.error_code_tag, 'INVALID_FIELD');
          assert.match(res.body.error_text, /bill_amount/);
          assert.equal(await countRows(), before);
        }),
        { numRuns: 100 },
      );
    });
  });
}
