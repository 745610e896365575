// POST /transaction/s2s — every row of the field table in docs/api.md "Initiation":
// missing, invalid and valid values, the stored normal form, and that a refused request
// writes nothing.
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
import type { TransactionRecord } from '../../../src/domain/transaction.ts';

type Body = Record<string, unknown>;

/** The field table of docs/api.md "Initiation" in its own order; validation reports the first broken one. */
const FIELD_ORDER = [
  'merchantid',
  'password',
  'payment_method',
  'trackid',
  'bill_currencycode',
  'bill_amount',
  'bill_country',
  'bill_customerip',
  'bill_email',
  'returnUrl',
  'serverUrl',
  'payer_account_no',
  'payer_account_name',
  'payer_bank_code',
] as const;

/** A value of the wrong JSON type for each field (bill_amount may be a number, so it gets a boolean). */
const WRONG_TYPE: Record<(typeof FIELD_ORDER)[number], unknown> = {
  merchantid: 12345,
  password: { secret: true },
  payment_method: 'THAI_DEBIT',
  trackid: 4711,
  bill_currencycode: 764,
  bill_amount: true,
  bill_country: 66,
  bill_customerip: 3232235777,
  bill_email: ['buyer@example.com'],
  returnUrl: { href: 'https://merchant.example/' },
  serverUrl: 42,
  payer_account_no: 987654321012,
  payer_account_name: 7,
  payer_bank_code: 14,
};

/** A value that breaks each field's rule, for the "reported in the documented order" test. */
const BROKEN: Record<Exclude<(typeof FIELD_ORDER)[number], 'merchantid' | 'password'>, unknown> = {
  payment_method: [],
  trackid: 'x'.repeat(65),
  bill_currencycode: 'USD',
  bill_amount: '1e3',
  bill_country: 'XX',
  bill_customerip: '300.1.1.1',
  bill_email: 'not-an-email',
  returnUrl: '/relative',
  serverUrl: 'ftp://merchant.example/',
  payer_account_no: '12ab',
  payer_account_name: 'n'.repeat(141),
  payer_bank_code: '999',
};

for (const { dialect, skip } of await testDialects()) {
  describe(`initiation validation [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    let serial = 0;

    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
    });
    after(() => gw?.close());

    const countRows = async (g: TestGateway = gw) =>
      Number(
        (
          await g.testStore.db
            .selectFrom('transactions')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    /** A valid body with a fresh trackid, with `overrides` applied; `undefined` removes a field. */
    function body(overrides: Body = {}, c: MerchantCredentials = creds): Body {
      const b: Body = initiationBody(c, { trackid: `val-${++serial}`, ...overrides });
      for (const [k, v] of Object.entries(overrides)) if (v === undefined) delete b[k];
      return b;
    }

    /** An error echoes trackid/merchantid when present (docs/api.md "Errors"): text as sent, a number as its text. */
    const echoed = (value: unknown) =>
      typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;

    async function rejected(
      payload: Body,
      expected: { code: string; tag: string; field: string; status?: number },
      g: TestGateway = gw,
    ) {
      const before = await countRows(g);
      const res = await post(g, '/transaction/s2s', payload);
      assertErrorBody(res, {
        status: expected.status ?? 400,
        code: expected.code,
        tag: expected.tag,
        field: expected.field,
        trackid: echoed(payload.trackid),
        merchantid: echoed(payload.merchantid),
      });
      assert.equal(await countRows(g), before, 'a refused request writes no transaction');
      return res;
    }

    const invalid = (payload: Body, field: string, g?: TestGateway) =>
      rejected(payload, { code: '2002', tag: 'INVALID_FIELD', field }, g);
    const missing = (payload: Body, field: string) => rejected(payload, { code: '2001', tag: 'MISSING_FIELD', field });

    async function accepted(
      payload: Body,
      g: TestGateway = gw,
      c: MerchantCredentials = creds,
    ): Promise<TransactionRecord> {
      const res = await post(g, '/transaction/s2s', payload);
      assert.equal(res.status, 200, res.raw);
      assert.equal(res.body.responsecode, '9', res.raw);
      const stored = await g.services.transactions.findById(c.merchantid, res.body.transactionid);
      assert.ok(stored);
      return stored;
    }

    describe('every field is required: absent, null or empty → MISSING_FIELD 2001', () => {
      for (const field of FIELD_ORDER) {
        test(`${field}`, async () => {
          await missing(body({ [field]: undefined }), field);
          await missing(body({ [field]: null }), field);
          await missing(body({ [field]: '' }), field);
          // Blank text is empty too (credentials are compared as sent, so '   ' is a wrong password instead).
          if (field !== 'merchantid' && field !== 'password') await missing(body({ [field]: '   ' }), field);
        });
      }

      test('payment_method.type: absent, null or empty inside the object', async () => {
        await missing(body({ payment_method: {} }), 'payment_method.type');
        await missing(body({ payment_method: { type: null } }), 'payment_method.type');
        await missing(body({ payment_method: { type: '' } }), 'payment_method.type');
      });
    });

    describe('a value of the wrong JSON type → INVALID_FIELD 2002 naming the field', () => {
      for (const field of FIELD_ORDER) {
        test(`${field}: ${JSON.stringify(WRONG_TYPE[field])}`, async () => {
          await invalid(body({ [field]: WRONG_TYPE[field] }), field);
        });
      }

      test('payment_method.type: not a string', async () => {
        await invalid(body({ payment_method: { type: 1 } }), 'payment_method.type');
      });
    });

    test('the first broken field is reported, in the order of the documented field table', async () => {
      const fields = Object.keys(BROKEN) as (keyof typeof BROKEN)[];
      for (let i = 0; i < fields.length; i++) {
        // Fields before i are valid, fields from i on are all broken: field i must be named.
        const overrides: Body = Object.fromEntries(fields.slice(i).map((f) => [f, BROKEN[f]]));
        const res = await post(gw, '/transaction/s2s', body(overrides));
        assert.equal(res.status, 400, res.raw);
        const expected = fields[i] === 'payment_method' ? "'payment_method'" : `'${fields[i]}'`;
        assert.ok(res.body.error_text.includes(expected), `expected ${expected} first: ${res.raw}`);
      }
    });

    test(
      'credentials are checked before the fields: a wrong ' + 'password with broken fields is INVALID_CREDENTIALS',
      async () => {
        await rejected(body({ password: 'wrong', bill_amount: '1' }), {
          status: 401,
          code: '1000',
          tag: 'INVALID_CREDENTIALS',
          field: 'password',
        });
      },
    );

    describe('payment_method.type', () => {
      test('THAI_DEBIT is accepted', async () => {
        const t = await accepted(body({ payment_method: { type: 'THAI_DEBIT' } }));
        assert.equal(t.paymentMethod, 'THAI_DEBIT');
      });

      test('any other type → UNSUPPORTED_PAYMENT_METHOD 2004', async () => {
        for (const type of ['CARD', 'PROMPTPAY', 'thai_debit', 'THAI_CREDIT']) {
          await rejected(body({ payment_method: { type } }), {
            code: '2004',
            tag: 'UNSUPPORTED_PAYMENT_METHOD',
            field: 'payment_method.type',
          });
        }
      });

      test('payment_method that is not an object → INVALID_FIELD', async () => {
        await invalid(body({ payment_method: ['THAI_DEBIT'] }), 'payment_method');
        await invalid(body({ payment_method: true }), 'payment_method');
      });
    });

    describe('trackid: 1–64 printable characters', () => {
      test('1 and 64 characters, spaces and punctuation are accepted and stored as sent', async () => {
        for (const trackid of ['a', 'x'.repeat(64), 'Order #4711 / retry (2)', '~!@$%^&*()_+{}|:"<>?']) {
          const t = await accepted(body({ trackid }));
          assert.equal(t.trackid, trackid);
        }
      });

      test('65 characters, control characters and non-printable text are refused', async () => {
        for (const trackid of [
          'y'.repeat(65),
          'tab\there',
          'line\nbreak',
          'nul\u0000',
          'del\u007f',
          'ไทย-1',
          'emoji-🙂',
        ]) {
          await invalid(body({ trackid }), 'trackid');
        }
      });
    });

    describe('bill_currencycode: THB only', () => {
      test('THB is accepted (case and surrounding spaces do not matter)', async () => {
        for (const bill_currencycode of ['THB', 'thb', ' THB ']) {
          const t = await accepted(body({ bill_currencycode }));
          assert.equal(t.currency, 'THB');
        }
      });

      test('any other currency → UNSUPPORTED_CURRENCY 2004', async () => {
        for (const bill_currencycode of ['USD', 'PHP', 'EUR', 'BAHT', 'TH', '฿']) {
          await rejected(body({ bill_currencycode }), {
            code: '2004',
            tag: 'UNSUPPORTED_CURRENCY',
            field: 'bill_currencycode',
          });
        }
      });
    });

    describe('bill_amount: number or numeric string, exact, 2 decimals, 100 – 2,000,000', () => {
      test('a numeric string and a JSON number are the same amount', async () => {
        assert.equal((await accepted(body({ bill_amount: '150.50' }))).amountMinor, 1_505_000n);
        assert.equal((await accepted(body({ bill_amount: 150.5 }))).amountMinor, 1_505_000n);
        assert.equal((await accepted(body({ bill_amount: '150' }))).amountMinor, 1_500_000n);
        assert.equal((await accepted(body({ bill_amount: 150 }))).amountMinor, 1_500_000n);
      });

      test('a JSON number is read by its shortest decimal form: 150.0 → 150, 9999.99 → 9999.99', async () => {
        const raw = (amount: string) => JSON.stringify(body({ bill_amount: '__A__' })).replace('"__A__"', amount);
        for (const [literal, minor] of [
          ['150.0', 1_500_000n],
          ['9999.99', 99_999_900n],
          ['1.5e2', 1_500_000n],
          ['15050E-2', 1_505_000n],
        ] as const) {
          const res = await post(gw, '/transaction/s2s', raw(literal));
          assert.equal(res.status, 200, `${literal}: ${res.raw}`);
          assert.equal(
            (await gw.services.transactions.findById(creds.merchantid, res.body.transactionid))?.amountMinor,
            minor,
            literal,
          );
        }
      });

      test('trailing zeros beyond two decimals are not significant: 150.500 is accepted', async () => {
        assert.equal((await accepted(body({ bill_amount: '150.500' }))).amountMinor, 1_505_000n);
        assert.equal((await accepted(body({ bill_amount: '0150.5000' }))).amountMinor, 1_505_000n);
      });

      test('more than two significant decimals is refused: 99.999, 150.001 (string or number)', async () => {
        for (const bill_amount of ['99.999', 99.999, '150.001', 150.001, '150.0000001', 1000.125]) {
          await invalid(body({ bill_amount }), 'bill_amount');
        }
      });

      test('sign, exponent, spaces and other spellings are refused in a string', async () => {
        for (const bill_amount of [
          '+150',
          '-150',
          '1.5e2',
          '1E3',
          '150e0',
          ' 150',
          '150 ',
          '1 50',
          '\t150',
          '150.',
          '.50',
          '1,500.00',
          '150.5.0',
          '๑๕๐',
          '１５０',
          'NaN',
          'Infinity',
          '0x96',
        ]) {
          await invalid(body({ bill_amount }), 'bill_amount');
        }
      });

      test('a negative JSON number or a non-scalar is refused', async () => {
        for (const bill_amount of [-150, -0.01, { value: 150 }, [150]])
          await invalid(body({ bill_amount }), 'bill_amount');
      });

      test('minimum 100 is inclusive; 99.99 → AMOUNT_TOO_LOW 2003', async () => {
        assert.equal((await accepted(body({ bill_amount: '100' }))).amountMinor, 1_000_000n);
        assert.equal((await accepted(body({ bill_amount: 100 }))).amountMinor, 1_000_000n);
        assert.equal((await accepted(body({ bill_amount: '100.00' }))).amountMinor, 1_000_000n);
        for (const bill_amount of ['99.99', 99.99, '0', 0, 1, '0.01']) {
          const res = await rejected(body({ bill_amount }), {
            code: '2003',
            tag: 'AMOUNT_TOO_LOW',
            field: 'bill_amount',
          });
          assert.match(res.body.error_text, /100\.00/);
        }
      });

      test('maximum 2,000,000 is inclusive; 2000000.01 → AMOUNT_TOO_HIGH 2003', async () => {
        assert.equal((await accepted(body({ bill_amount: '2000000' }))).amountMinor, 20_000_000_000n);
        assert.equal((await accepted(body({ bill_amount: 2000000 }))).amountMinor, 20_000_000_000n);
        assert.equal((await accepted(body({ bill_amount: '2000000.00' }))).amountMinor, 20_000_000_000n);
        for (const bill_amount of ['2000000.01', 2000000.01, '99999999999999999999999999999', 1e21, 1e300]) {
          const res = await rejected(body({ bill_amount }), {
            code: '2003',
            tag: 'AMOUNT_TOO_HIGH',
            field: 'bill_amount',
          });
          assert.match(res.body.error_text, /2000000\.00/);
        }
      });

      test('a configured MAX_AMOUNT is honoured', async () => {
        const small = await startTestGateway(dialect, { MAX_AMOUNT: '5000' });
        try {
          const c = await addMerchant(small);
          assert.equal((await accepted(body({ bill_amount: '5000.00' }, c), small, c)).amountMinor, 50_000_000n);
          const res = await rejected(
            body({ bill_amount: '5000.01' }, c),
            { code: '2003', tag: 'AMOUNT_TOO_HIGH', field: 'bill_amount' },
            small,
          );
          assert.match(res.body.error_text, /5000\.00/);
        } finally {
          await small.close();
        }
      });
    });

    describe('bill_country: ISO 3166-1 alpha-2, case-insensitive, stored upper-case', () => {
      test('accepted and stored upper-case', async () => {
        for (const [bill_country, stored] of [
          ['TH', 'TH'],
          ['th', 'TH'],
          ['Th', 'TH'],
          [' us ', 'US'],
          ['gb', 'GB'],
        ]) {
          assert.equal((await accepted(body({ bill_country }))).billCountry, stored);
        }
      });

      test('not an assigned alpha-2 code → INVALID_FIELD', async () => {
        for (const bill_country of ['XX', 'ZZ', 'UK', 'EU', 'THA', 'T', '1A', 'T H', 'ไท']) {
          await invalid(body({ bill_country }), 'bill_country');
        }
      });
    });

    describe('bill_customerip: IPv4 or IPv6', () => {
      test('IPv4 and IPv6 addresses are accepted', async () => {
        for (const ip of [
          '203.150.10.24',
          '0.0.0.0',
          '255.255.255.255',
          '::1',
          '2001:db8::42',
          '::ffff:192.0.2.1',
          '2001:0db8:0000:0000:0000:0000:0000:0001',
          'FE80::1',
        ]) {
          assert.equal((await accepted(body({ bill_customerip: ip }))).billCustomerIp, ip);
        }
      });

      test('anything else → INVALID_FIELD', async () => {
        for (const ip of [
          '256.1.1.1',
          '1.2.3',
          '1.2.3.4.5',
          '010.0.0.1',
          '0x7f.0.0.1',
          '1.2.3.4/24',
          'example.com',
          '1::2::3',
          '12345::',
          '::g',
          '[::1]',
          '1.2.3.4:80',
        ]) {
          await invalid(body({ bill_customerip: ip }), 'bill_customerip');
        }
      });
    });

    describe('bill_email: one @, a dotted domain, at most 254 characters', () => {
      // 64 + 1 + 189 = 254 characters, every label within 63.
      const longest = `${'l'.repeat(64)}@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(58)}.th`;

      test('accepted', async () => {
        assert.equal(longest.length, 254);
        for (const email of ['a@b.co', 'first.last+tag@sub.example.co.th', "o'neil@example.com", longest]) {
          assert.equal((await accepted(body({ bill_email: email }))).billEmail, email);
        }
      });

      test('refused', async () => {
        const tooLong = `${'l'.repeat(64)}@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(59)}.th`;
        assert.equal(tooLong.length, 255);
        for (const email of [
          'plain',
          'a@@b.co',
          'a@b@c.co',
          'a@localhost',
          'a@b.',
          '@b.co',
          'a@.co',
          'a b@c.co',
          'a@-b.co',
          'a@b..co',
          'a@1.2',
          tooLong,
        ]) {
          await invalid(body({ bill_email: email }), 'bill_email');
        }
      });
    });

    for (const field of ['returnUrl', 'serverUrl'] as const) {
      describe(`${field}: absolute http/https URL, at most 2048 characters`, () => {
        const ofLength = (n: number) => {
          const prefix = 'https://merchant.example/';
          return prefix + 'p'.repeat(n - prefix.length);
        };

        test('accepted', async () => {
          for (const url of [
            'https://merchant.example/return?order=1&x=y',
            'http://merchant.example:8080/p',
            'HTTPS://MERCHANT.EXAMPLE/R',
            ofLength(2048),
          ]) {
            assert.equal((await accepted(body({ [field]: url })))[field], url);
          }
        });

        test('refused', async () => {
          for (const url of [
            'merchant.example/return',
            '/return',
            'ftp://merchant.example/',
            'javascript:alert(1)',
            'mailto:a@b.co',
            'https://',
            'http:merchant.example',
            'https:\\\\merchant.example\\r',
            'https://exa mple.com/',
            'https://merchant.example/a\nb',
            ofLength(2049),
          ]) {
            await invalid(body({ [field]: url }), field);
          }
        });
      });
    }

    describe('returnUrl, returnUrl_on_failure, serverUrl: the host is a DNS name or an IP literal', () => {
      // The return URLs' origins go into the hosted page's Content-Security-Policy (form-action):
      // a `,` would split it into two policies, a `*` would widen it (docs/api.md "Initiation").
      const fields = ['returnUrl', 'returnUrl_on_failure', 'serverUrl'] as const;

      test('refused with INVALID_FIELD naming the field and saying what a host may be', async () => {
        for (const field of fields) {
          for (const url of [
            'https://a,script-src/x',
            'https://*/x',
            'https://*.merchant.example/x',
            "https://a'b.example/",
            'https://a;b.example/',
            'https://a%2cb.example/',
            'https://a!b.example/',
            'https://a_b.example/',
            'https://-a.example/',
            'https://a..b.example/',
            `https://${'a'.repeat(64)}.example/`,
          ]) {
            const res = await invalid(body({ [field]: url }), field);
            assert.match(res.body.error_text, /its host must be a DNS name .* or an IP address/, url);
          }
        }
      });

      test('DNS names, internationalised names and IP literals are accepted', async () => {
        for (const field of fields) {
          for (const url of [
            'https://merchant.example/r',
            'https://shop-1.merchant.example./r',
            'https://ร้าน.example/r',
            'http://localhost:3000/r',
            'http://127.0.0.1:8080/r',
            'http://[::1]:8080/r',
            `https://${'a'.repeat(63)}.example/`,
          ]) {
            const stored = await accepted(body({ [field]: url }));
            const kept = field === 'returnUrl_on_failure' ? stored.returnUrlOnFailure : stored[field];
            assert.equal(kept, url);
          }
        }
      });
    });

    describe('serverUrl: the outbound policy', () => {
      test('sandbox mode lets merchants test against localhost and their LAN', async () => {
        for (const url of ['http://127.0.0.1:9999/notify', 'http://localhost:3000/hook', 'http://192.168.1.20/hook']) {
          assert.equal((await accepted(body({ serverUrl: url }))).serverUrl, url);
        }
      });

      test('credentials in the URL are refused even in sandbox', async () => {
        await invalid(body({ serverUrl: 'https://user:secret@merchant.example/notify' }), 'serverUrl');
      });

      test('live mode refuses loopback, private, link-local, CGNAT, metadata and plain http', async () => {
        const live = await startTestGateway(dialect, {
          GATEWAY_MODE: 'live',
          PUBLIC_BASE_URL: 'https://gateway.example',
        });
        try {
          const c = await addMerchant(live);
          for (const url of [
            'http://127.0.0.1/',
            'https://127.0.0.1/',
            'https://10.0.0.1/',
            'https://192.168.1.10/hook',
            'https://172.16.5.4/hook',
            'https://169.254.169.254/latest/meta-data',
            'https://100.64.0.1/',
            'https://[::1]/',
            'https://[fd00::1]/',
            'https://localhost/hook',
            'http://merchant.example/notify',
          ]) {
            // Twice: the second answer comes from the route's memory of verdicts, and must be the same.
            for (let i = 0; i < 2; i++) {
              const res = await invalid(body({ serverUrl: url }, c), 'serverUrl', live);
              assert.match(res.body.error_text, /outbound policy/);
            }
          }
          for (let i = 0; i < 2; i++)
            assert.equal(
              (await accepted(body({ serverUrl: 'https://merchant.example/notify' }, c), live, c)).serverUrl,
              'https://merchant.example/notify',
            );
          assert.equal(
            (await accepted(body({ serverUrl: 'https://8.8.8.8/hook' }, c), live, c)).serverUrl,
            'https://8.8.8.8/hook',
          );
          // The policy is for serverUrl only: the customer's browser follows returnUrl.
          assert.equal(
            (await accepted(body({ returnUrl: 'http://127.0.0.1/return' }, c), live, c)).returnUrl,
            'http://127.0.0.1/return',
          );
        } finally {
          await live.close();
        }
      });

      test('a public-only sandbox (OUTBOUND_PUBLIC_ONLY=true) refuses what live mode refuses, http aside', async () => {
        const shared = await startTestGateway(dialect, { OUTBOUND_PUBLIC_ONLY: 'true' });
        try {
          const c = await addMerchant(shared);
          for (const url of [
            'http://127.0.0.1:9999/notify',
            'http://localhost:3000/hook',
            'http://192.168.1.20/hook',
          ]) {
            const res = await invalid(body({ serverUrl: url }, c), 'serverUrl', shared);
            assert.match(res.body.error_text, /outbound policy.*public-only sandbox mode/);
          }
          assert.equal(
            (await accepted(body({ serverUrl: 'http://merchant.example/notify' }, c), shared, c)).serverUrl,
            'http://merchant.example/notify',
          );
        } finally {
          await shared.close();
        }
      });

      test('live mode with an allow-list entry accepts that private target', async () => {
        const live = await startTestGateway(dialect, {
          GATEWAY_MODE: 'live',
          PUBLIC_BASE_URL: 'https://gateway.example',
          OUTBOUND_ALLOWLIST: '10.0.0.0/8',
        });
        try {
          const c = await addMerchant(live);
          assert.equal(
            (await accepted(body({ serverUrl: 'https://10.0.0.1/hook' }, c), live, c)).serverUrl,
            'https://10.0.0.1/hook',
          );
          await invalid(body({ serverUrl: 'https://192.168.0.1/hook' }, c), 'serverUrl', live);
        } finally {
          await live.close();
        }
      });
    });

    describe('payer_account_no: 6–20 digits', () => {
      test('accepted', async () => {
        for (const no of ['123456', '01234567890123456789', '0987654321']) {
          assert.equal((await accepted(body({ payer_account_no: no }))).payerAccountNo, no);
        }
        assert.equal((await accepted(body({ payer_account_no: ' 0987654321 ' }))).payerAccountNo, '0987654321');
      });

      test('refused', async () => {
        for (const no of [
          '12345',
          '1'.repeat(21),
          '12345-678',
          '12 345 678',
          '１２３４５６',
          '๑๒๓๔๕๖',
          'abcdefg',
          '+123456',
        ]) {
          await invalid(body({ payer_account_no: no }), 'payer_account_no');
        }
      });
    });

    describe('payer_account_name: 1–140 characters after trimming', () => {
      test('accepted and stored trimmed', async () => {
        assert.equal((await accepted(body({ payer_account_name: 'A' }))).payerAccountName, 'A');
        assert.equal(
          (await accepted(body({ payer_account_name: '  Malee Srisuk  ' }))).payerAccountName,
          'Malee Srisuk',
        );
        assert.equal(
          (await accepted(body({ payer_account_name: ` ${'a'.repeat(140)} ` }))).payerAccountName,
          'a'.repeat(140),
        );
        assert.equal((await accepted(body({ payer_account_name: 'ก'.repeat(140) }))).payerAccountName, 'ก'.repeat(140));
      });

      test('141 characters are refused', async () => {
        await invalid(body({ payer_account_name: 'a'.repeat(141) }), 'payer_account_name');
        await invalid(body({ payer_account_name: 'ก'.repeat(141) }), 'payer_account_name');
      });
    });

    describe('payer_bank_code: a Thai bank code, its short name or a common bank name, stored as the code', () => {
      // Plugins take this from a free-text field: what customers type is accepted when it names one bank.
      const ACCEPTED: Array<[string, string]> = [
        ['014', '014'],
        ['SCB', '014'],
        ['scb', '014'],
        ['KBANK', '004'],
        [' 004 ', '004'],
        ['BBL', '002'],
        ['BAY', '025'],
        ['002', '002'],
        ['073', '073'],
        ['LHFG', '073'],
        ['K-Bank', '004'],
        ['Kasikorn', '004'],
        ['Kasikornbank', '004'],
        ['KASIKORN BANK', '004'],
        ['Krungthai', '006'],
        ['Krung Thai Bank', '006'],
        ['Bangkok Bank', '002'],
        ['Siam Commercial', '014'],
        ['Siam Commercial Bank', '014'],
        ['S C B', '014'],
        ['s.c.b.', '014'],
        ['Krungsri', '025'],
        ['TTB', '011'],
        ['TMBThanachart', '011'],
        ['TMB-Thanachart Bank', '011'],
        ['GSB', '030'],
        ['Government Savings Bank', '030'],
        ['ธนาคารกสิกรไทย', '004'],
      ];
      for (const [input, code] of ACCEPTED) {
        test(`'${input}' → ${code}`, async () => {
          assert.equal((await accepted(body({ payer_bank_code: input }))).payerBankCode, code);
        });
      }

      test('refused: unknown codes and names → 400 INVALID_FIELD naming payer_bank_code', async () => {
        for (const code of ['999', '000', 'XYZ', '14', '0140', 'Bank', 'Siam', 'Thai Bank', 'Kasikorn Savings']) {
          await invalid(body({ payer_bank_code: code }), 'payer_bank_code');
        }
      });
    });

    test('unknown extra fields are accepted and ignored (real clients send them, often empty)', async () => {
      const t = await accepted(
        body({
          productdesc: 'Order #12',
          returnUrl_on_failure: 'https://merchant.example/failed',
          lang: 'th',
          bill_phone: '',
          bill_city: 'Bangkok',
          bill_state: '',
          bill_address: null,
          bill_zip: '10110',
          something_new: { nested: [1, 2, 3] },
        }),
      );
      assert.equal(t.productdesc, 'Order #12');
      assert.equal(t.lang, 'th');
    });
  });
}
