// The console over HTTP on both stores: login (operator with TOTP, merchant), throttling,
// CSRF on every form, idle expiry on the injected clock, cookies' attributes, CSP, merchant
// scoping (another merchant's payment is the same 404 as an unknown one), search and keyset
// paging, resend through the outbox, sandbox completion, and the audit entries each writes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { base32Decode, hotp, totpStep } from '../../../src/domain/totp.ts';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  initiationBody,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { ConsoleClient, consoleOf, OPERATOR_PASSWORD } from '../../support/console-client.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`console over HTTP (${dialect})`, { skip }, () => {
    let gw: TestGateway;
    let shopA: MerchantCredentials;
    let shopB: MerchantCredentials;
    let shopAConsole: string;
    let paymentB: string;

    async function pay(creds: MerchantCredentials, overrides: Record<string, unknown> = {}): Promise<string> {
      const r = await post(
        gw,
        '/transaction/s2s',
        initiationBody(creds, { trackid: `t-${Math.random().toString(36).slice(2, 10)}`, ...overrides }),
      );
      assert.equal(r.body.responsecode, '9', JSON.stringify(r.body));
      return r.body.transactionid as string;
    }

    before(async () => {
      gw = await startTestGateway(dialect, {
        CONSOLE_LOGIN_LIMIT: '3',
        CONSOLE_LOGIN_WINDOW: '15m',
        TRUST_PROXY: 'loopback',
      });
      const c = consoleOf(gw);
      await c.accounts.createOperator({ username: 'op', password: OPERATOR_PASSWORD, totp: false });
      shopA = await addMerchant(gw, { id: 'shop-a' });
      shopB = await addMerchant(gw, { id: 'shop-b' });
      shopAConsole = (await c.accounts.issueMerchantPassword('shop-a')).password;
      paymentB = await pay(shopB, { bill_email: 'Someone@Example.com' });
    });
    after(() => gw?.close());

    test(
      'pages need a session: a GET goes to the login form ' + '(and comes back after login), a POST changes nothing',
      async () => {
        const anon = new ConsoleClient(gw.app);
        const page = await anon.get('/console/payments?state=FAILED');
        assert.equal(page.status, 303);
        assert.equal(
          page.location,
          `/console/login?next=${encodeURIComponent('/console/payments?state=FAILED')}`,
          'a first visit is not told its session ended',
        );
        await anon.get(page.location!);
        assert.doesNotMatch(anon.last!.body, /เซสชันหมดอายุ/, 'no "session ended" notice on a first visit');
        const next = /name="next" value="([^"]*)"/.exec(anon.last!.body)![1];
        assert.equal(next, '/console/payments?state=FAILED');
        const login = await anon.post('/console/login', {
          csrf: anon.csrf(),
          role: 'operator',
          username: 'op',
          password: OPERATOR_PASSWORD,
          next: next!,
        });
        assert.equal(login.location, '/console/payments?state=FAILED');
        const forged = await new ConsoleClient(gw.app).post(`/console/payments/${paymentB}/resend`, { csrf: 'x' });
        assert.equal(forged.status, 303);
        assert.match(forged.location!, /^\/console\/login/);
      },
    );

    test('a login link whose next is not printable ASCII (/console/ก) is followed percent-encoded', async () => {
      const thai = new ConsoleClient(gw.app);
      await thai.get(`/console/login?next=${encodeURIComponent('/console/ก')}`);
      assert.match(thai.last!.body, /name="next" value="\/console\/%E0%B8%81"/);
      const login = await thai.post('/console/login', {
        csrf: thai.csrf(),
        role: 'operator',
        username: 'op',
        password: OPERATOR_PASSWORD,
        next: '/console/ก',
      });
      assert.equal(login.status, 303, login.body.slice(0, 200));
      assert.equal(login.location, '/console/%E0%B8%81');
      const control = new ConsoleClient(gw.app);
      await control.get('/console/login');
      const answer = await control.post('/console/login', {
        csrf: control.csrf(),
        role: 'operator',
        username: 'op',
        password: OPERATOR_PASSWORD,
        next: '/console/a\u0001b',
      });
      assert.equal(answer.status, 303);
      assert.equal(answer.location, '/console/a%01b');
    });

    test(
      'login sets an HttpOnly SameSite=Strict session cookie ' +
        'scoped to /console; pages carry a nonce CSP and no-store',
      async () => {
        const b = new ConsoleClient(gw.app);
        const login = await b.login('operator', 'op', OPERATOR_PASSWORD);
        assert.equal(login.status, 303);
        const cookie = [login.headers['set-cookie']].flat().find((c) => String(c).startsWith('gw_console='));
        assert.match(
          String(cookie),
          /; Path=\/console; SameSite=Strict; HttpOnly$/,
          'no Secure flag in sandbox over http',
        );
        const page = await b.get('/console/payments');
        assert.equal(page.status, 200);
        const csp = String(page.headers['content-security-policy']);
        assert.match(csp, /default-src 'none'/);
        const nonce = /style-src 'nonce-([^']+)'/.exec(csp)![1];
        assert.ok(page.body.includes(`<style nonce="${nonce}">`));
        assert.equal(page.headers['cache-control'], 'no-store');
        assert.equal(page.headers['x-frame-options'], 'DENY');
        assert.ok(!/<script/i.test(page.body), 'the console runs no script at all');
      },
    );

    test(
      'failed logins are throttled per client address and per ' +
        'account (429 before any hashing); the window ends it',
      async () => {
        const fromA = new ConsoleClient(gw.app, { 'x-forwarded-for': '192.0.2.9' });
        for (let i = 0; i < 3; i++)
          assert.equal((await fromA.login('operator', 'op-throttle', 'wrong password 123')).status, 401);
        const locked = await fromA.login('operator', 'op-throttle', 'wrong password 123');
        assert.equal(locked.status, 429);
        assert.equal(locked.headers['retry-after'], '60');
        // The same account from another address: locked (per account).
        assert.equal(
          (
            await new ConsoleClient(gw.app, { 'x-forwarded-for': '192.0.2.10' }).login(
              'operator',
              'op-throttle',
              'anything at all',
            )
          ).status,
          429,
        );
        // Another account from the same address: locked (per address), even with the right password.
        assert.equal(
          (
            await new ConsoleClient(gw.app, { 'x-forwarded-for': '192.0.2.9' }).login(
              'operator',
              'op',
              OPERATOR_PASSWORD,
            )
          ).status,
          429,
        );
        // Anyone else is unaffected.
        assert.equal(
          (
            await new ConsoleClient(gw.app, { 'x-forwarded-for': '192.0.2.11' }).login(
              'operator',
              'op',
              OPERATOR_PASSWORD,
            )
          ).status,
          303,
        );
        gw.clock.now += 15 * 60_000;
        assert.equal(
          (
            await new ConsoleClient(gw.app, { 'x-forwarded-for': '192.0.2.9' }).login(
              'operator',
              'op',
              OPERATOR_PASSWORD,
            )
          ).status,
          303,
          'the window passed',
        );
        const audit = await gw.services.store.consoleAccounts.listAudit({ limit: 50, action: 'login.failed' });
        const failures = audit.filter((e) => e.target === 'operator:op-throttle');
        assert.equal(failures.length, 3, 'each failure audited once; throttled attempts are not');
        assert.ok(failures.every((e) => e.actorRole === 'anonymous' && e.remoteAddr === '192.0.2.9'));
        assert.ok(
          audit.every((e) => !JSON.stringify(e).includes('wrong password')),
          'no password in the audit log',
        );
      },
    );

    test(
      'CSRF: a login or action without the token, with a token of another ' +
        'session, or cross-site is refused (403) and changes nothing',
      async () => {
        const b = new ConsoleClient(gw.app);
        await b.get('/console/login');
        assert.equal(
          (await b.post('/console/login', { role: 'operator', username: 'op', password: OPERATOR_PASSWORD })).status,
          403,
        );
        await b.login('operator', 'op', OPERATOR_PASSWORD);
        const eve = new ConsoleClient(gw.app);
        await eve.login('operator', 'op', OPERATOR_PASSWORD);
        await eve.get(`/console/payments/${paymentB}`);
        const evesToken = eve.csrf();
        await b.get(`/console/payments/${paymentB}`);
        const own = b.csrf();
        const before = await gw.services.store.consoleAccounts.listAudit({ limit: 100, action: 'payment.complete' });
        assert.equal((await b.post(`/console/payments/${paymentB}/complete`, { outcome: 'success' })).status, 403);
        assert.equal(
          (await b.post(`/console/payments/${paymentB}/complete`, { outcome: 'success', csrf: evesToken })).status,
          403,
        );
        assert.equal(
          (
            await b.post(
              `/console/payments/${paymentB}/complete`,
              { outcome: 'success', csrf: own },
              { 'sec-fetch-site': 'cross-site' },
            )
          ).status,
          403,
        );
        const tx = await gw.services.transactions.findById(shopB.merchantid, paymentB);
        assert.equal(tx?.status, 'PROCESSING', 'nothing changed');
        assert.equal(
          (await gw.services.store.consoleAccounts.listAudit({ limit: 100, action: 'payment.complete' })).length,
          before.length,
        );
      },
    );

    test('sessions end after CONSOLE_IDLE_TIMEOUT without a request, and at logout', async () => {
      const b = new ConsoleClient(gw.app);
      await b.login('operator', 'op', OPERATOR_PASSWORD);
      gw.clock.now += 29 * 60_000;
      assert.equal((await b.get('/console/payments')).status, 200);
      gw.clock.now += 29 * 60_000;
      assert.equal((await b.get('/console/payments')).status, 200, 'activity keeps it alive');
      gw.clock.now += 30 * 60_000;
      const idle = await b.get('/console/payments');
      assert.equal(idle.status, 303, 'idle for 30 minutes: logged out');
      assert.equal(
        idle.location,
        `/console/login?ended=1&next=${encodeURIComponent('/console/payments')}`,
        'told the session ended',
      );
      assert.match((await b.get(idle.location!)).body, /เซสชันหมดอายุ/, 'the login form says so (Thai by default)');

      await b.login('operator', 'op', OPERATOR_PASSWORD);
      const token = b.cookies.get('gw_console')!;
      await b.get('/console/payments');
      const out = await b.post('/console/logout', { csrf: b.csrf() });
      assert.equal(out.location, '/console/login?loggedout=1');
      const replay = new ConsoleClient(gw.app);
      replay.cookies.set('gw_console', token);
      assert.equal((await replay.get('/console/payments')).status, 303, 'the old cookie is worthless after logout');
    });

    test('TOTP-enrolled operators need the current code', async () => {
      const created = await consoleOf(gw).accounts.createOperator({ username: 'twofa', totp: true });
      const secret = base32Decode(new URL(created.otpauthUri!).searchParams.get('secret')!);
      const b = new ConsoleClient(gw.app);
      assert.equal((await b.login('operator', 'twofa', created.password!, '')).status, 401);
      assert.equal(
        (await b.login('operator', 'twofa', created.password!, hotp(secret, totpStep(gw.clock.now)))).status,
        303,
      );
    });

    test(
      "a merchant sees only its own payments: another merchant's " +
        'payment is the same 404 as an unknown one, in lists and actions',
      async () => {
        const mine = await pay(shopA, { bill_email: 'Someone@Example.com' });
        const b = new ConsoleClient(gw.app);
        assert.equal((await b.login('merchant', 'shop-a', shopAConsole)).status, 303);
        const own = await b.get(`/console/payments/${mine}`);
        assert.equal(own.status, 200);
        const foreign = await b.get(`/console/payments/${paymentB}`);
        const unknown = await b.get('/console/payments/01900000-0000-7000-8000-000000000000');
        assert.equal(foreign.status, 404);
        assert.equal(unknown.status, 404);
        const strip = (s: string) => s.replace(/nonce-[^']+'|nonce="[^"]+"|value="[^"]+"/g, '');
        assert.equal(strip(foreign.body), strip(unknown.body), 'indistinguishable');
        assert.ok(!foreign.body.includes(paymentB));
        await b.get(`/console/payments/${mine}`);
        const csrf = b.csrf();
        assert.equal((await b.post(`/console/payments/${paymentB}/resend`, { csrf })).status, 404);
        assert.equal(
          (await b.post(`/console/payments/${paymentB}/complete`, { csrf, outcome: 'success' })).status,
          404,
        );
        assert.equal((await gw.services.transactions.findById(shopB.merchantid, paymentB))?.status, 'PROCESSING');
        // The same e-mail is on both shops' payments; the merchant's search finds only its own.
        const list = await b.get('/console/payments?q=someone%40example.com');
        assert.ok(list.body.includes(mine));
        assert.ok(!list.body.includes(paymentB));
        // ...even when it names the other merchant in the URL.
        const forced = await b.get('/console/payments?merchant=shop-b');
        assert.ok(!forced.body.includes(paymentB));
        assert.equal((await b.get('/console/merchants')).status, 404, 'operator pages do not exist for merchants');
        assert.equal((await b.get('/console/audit')).status, 404);
      },
    );

    test(
      'search: by trackid, transactionid, e-mail (any case), ' +
        'amount, state and date; keyset pages neither skip nor repeat',
      async () => {
        const shop = await addMerchant(gw, { id: 'shop-search' });
        const ids: string[] = [];
        for (let i = 0; i < 55; i++) {
          gw.clock.now += 1000;
          ids.push(
            await pay(shop, {
              trackid: `s-${String(i).padStart(3, '0')}`,
              bill_amount: i === 7 ? '123.45' : '100.00',
              bill_email: i === 9 ? 'Find.Me@Example.com' : 'buyer@example.com',
            }),
          );
        }
        const b = new ConsoleClient(gw.app);
        await b.login('operator', 'op', OPERATOR_PASSWORD);
        const idsOn = (body: string) =>
          [...body.matchAll(/href="\/console\/payments\/([0-9a-f-]{36})">[0-9a-f-]{36}</g)].map((m) => m[1]!);
        const first = await b.get('/console/payments?merchant=shop-search');
        const page1 = idsOn(first.body);
        assert.equal(page1.length, 50);
        assert.deepEqual(page1, ids.slice(-50).reverse(), 'newest first');
        const nextHref = /rel="next" href="([^"]+)"/.exec(first.body)![1]!.replaceAll('&amp;', '&');
        const page2 = idsOn((await b.get(nextHref)).body);
        assert.deepEqual(page2, ids.slice(0, 5).reverse());
        assert.ok(!/rel="next"/.test(b.last!.body), 'no page after the last');

        assert.deepEqual(idsOn((await b.get('/console/payments?q=s-012')).body), [ids[12]]);
        assert.deepEqual(idsOn((await b.get(`/console/payments?q=${ids[30]}`)).body), [ids[30]]);
        assert.deepEqual(idsOn((await b.get('/console/payments?q=find.me%40EXAMPLE.com')).body), [ids[9]]);
        assert.deepEqual(idsOn((await b.get('/console/payments?merchant=shop-search&amount=123.45')).body), [ids[7]]);
        assert.equal(idsOn((await b.get('/console/payments?merchant=shop-search&state=SUCCESS')).body).length, 0);
        const today = new Date(gw.clock.now + 7 * 3_600_000).toISOString().slice(0, 10);
        assert.equal(
          idsOn((await b.get(`/console/payments?merchant=shop-search&from=${today}&to=${today}`)).body).length,
          50,
        );
        assert.equal(idsOn((await b.get('/console/payments?merchant=shop-search&to=2000-01-01')).body).length, 0);
        const bad = await b.get('/console/payments?amount=12.345&from=2026-02-30');
        assert.equal(bad.status, 400);
        assert.match(bad.body, /role="alert"/);
      },
    );

    test('every query parameter out of range answers 400 or is ignored, never 500', async () => {
      const b = new ConsoleClient(gw.app);
      await b.login('operator', 'op', OPERATOR_PASSWORD);
      const huge = '9'.repeat(16);
      const uuid = '00000000-0000-0000-0000-000000000000';
      const statuses: Record<string, number> = {};
      for (const url of [
        '/console/payments?amount=922337203685477.58',
        '/console/payments?amount=922337203685477.59',
        '/console/payments?amount=99999999999999999999999999999',
        `/console/payments?before=${huge}.${uuid}`,
        '/console/payments?from=0001-01-01&to=9999-12-31',
        '/console/payments?from=275760-09-13',
        `/console/deliveries?status=all&before=${huge}.evt_x`,
        `/console/audit?before=${huge}.${uuid}`,
        '/console/balances?merchant=shop-a&before=999999999999999999',
        `/console/balances?merchant=shop-a&account=${'x'.repeat(5000)}`,
        `/console/balances/postings.csv?merchant=shop-a&account=${'x'.repeat(5000)}`,
        `/console/payments/${paymentB}?done=resent&series=1e400`,
        '/console/attention?done=resolved&item=x',
      ])
        statuses[url] = (await b.get(url)).status;
      assert.deepEqual(
        Object.entries(statuses).filter(([, status]) => status >= 500),
        [],
        Object.keys(statuses)
          .filter((url) => statuses[url]! >= 500)
          .join(', '),
      );
      assert.equal(statuses['/console/payments?amount=922337203685477.58'], 200, 'the largest 64-bit amount');
      assert.equal(statuses['/console/payments?amount=922337203685477.59'], 400, 'one satang more');
      assert.equal(statuses['/console/payments?amount=99999999999999999999999999999'], 400);
    });

    test('resend: a failed notification goes out again through the outbox (new series), audited', async () => {
      const id = await pay(shopB);
      await gw.services.complete.execute(id, 'sandbox', { override: 'success' });
      const outbox = gw.services.store.outbox;
      const event = (await outbox.findByTransaction(id))!;
      await gw.testStore.db
        .updateTable('outbox_events')
        .set({ status: 'failed', last_error: 'HTTP 500' })
        .where('id', '=', event.id)
        .execute();
      const b = new ConsoleClient(gw.app);
      await b.login('operator', 'op', OPERATOR_PASSWORD);
      await b.get(`/console/payments/${id}`);
      const done = await b.post(`/console/payments/${id}/resend`, { csrf: b.csrf() });
      assert.equal(done.status, 303);
      assert.equal(done.location, `/console/payments/${id}?done=resent&series=2#notification`);
      const after = (await outbox.findById(event.id))!;
      assert.equal(after.status, 'pending');
      assert.equal(after.series, 2);
      const [entry] = await gw.services.store.consoleAccounts.listAudit({ limit: 1, action: 'delivery.resend' });
      assert.equal(entry?.target, event.id);
      assert.equal(entry?.details.transactionid, id);
      assert.equal(entry?.details.previous_status, 'failed');
    });

    test('sandbox completion from the detail page, by a merchant on its own payment, audited', async () => {
      const id = await pay(shopA);
      const b = new ConsoleClient(gw.app);
      await b.login('merchant', 'shop-a', shopAConsole);
      await b.get(`/console/payments/${id}`);
      const done = await b.post(`/console/payments/${id}/complete`, { csrf: b.csrf(), outcome: 'cancelled' });
      assert.equal(done.location, `/console/payments/${id}?done=completed`);
      const tx = await gw.services.transactions.findById('shop-a', id);
      assert.equal(tx?.status, 'FAILED');
      assert.equal(tx?.errorCodeTag, 'CANCELLED');
      const detail = await b.get(done.location!);
      assert.match(detail.body, /CANCELLED/);
      assert.ok(
        !detail.body.includes('action="/console/payments/' + id + '/complete"'),
        'no completion form once final',
      );
      const [entry] = await gw.services.store.consoleAccounts.listAudit({ limit: 1, action: 'payment.complete' });
      assert.equal(entry?.actorRole, 'merchant');
      assert.equal(entry?.actorId, 'shop-a');
      assert.equal(entry?.details.outcome, 'cancelled');
    });

    test('the payer account is masked; the full number appears nowhere on the page', async () => {
      const id = await pay(shopA, { payer_account_no: '1234567890123' });
      const b = new ConsoleClient(gw.app);
      await b.login('operator', 'op', OPERATOR_PASSWORD);
      const page = await b.get(`/console/payments/${id}`);
      assert.ok(page.body.includes('•••• 0123'));
      assert.ok(!page.body.includes('1234567890123'));
    });

    test('Thai by default, English on request (remembered)', async () => {
      const b = new ConsoleClient(gw.app);
      assert.match((await b.get('/console/login')).body, /<html lang="th">/);
      assert.match((await b.get('/console/login?lang=en')).body, /<html lang="en">.*Log in to the console/s);
      assert.match((await b.get('/console/login')).body, /<html lang="en">/);
    });
  });
}

describe('console cookies in live mode', () => {
  test('the session and CSRF cookies are Secure in live mode', async () => {
    const gw = await startTestGateway('sqlite', { GATEWAY_MODE: 'live', PUBLIC_BASE_URL: 'https://pay.example.com' });
    try {
      await consoleOf(gw).accounts.createOperator({ username: 'op', password: OPERATOR_PASSWORD, totp: false });
      const b = new ConsoleClient(gw.app);
      const form = await b.get('/console/login');
      assert.match(
        String([form.headers['set-cookie']].flat().find((c) => String(c).startsWith('gw_csrf='))),
        /; Secure/,
      );
      const login = await b.post('/console/login', {
        csrf: b.csrf(),
        role: 'operator',
        username: 'op',
        password: OPERATOR_PASSWORD,
        next: '',
      });
      assert.equal(login.status, 303);
      assert.match(
        String([login.headers['set-cookie']].flat().find((c) => String(c).startsWith('gw_console='))),
        /; HttpOnly; Secure$/,
      );
      const page = await b.get('/console/payments');
      assert.equal(page.status, 200);
      assert.ok(!page.body.includes('/complete"'), 'no sandbox tools in live mode');
    } finally {
      await gw.close();
    }
  });

  test('an oversized form is a 413 console page, not a stack trace or JSON', async () => {
    const gw = await startTestGateway('sqlite');
    try {
      const b = new ConsoleClient(gw.app);
      await b.get('/console/login');
      const big = await b.post('/console/login', {
        csrf: b.csrf(),
        username: 'x'.repeat(5000),
        password: 'y',
        role: 'operator',
      });
      assert.equal(big.status, 413);
      assert.match(String(big.headers['content-type']), /^text\/html/);
      assert.match(big.body, /That input is not valid|ข้อมูลไม่ถูกต้อง/);
    } finally {
      await gw.close();
    }
  });
});

describe('CONSOLE_ENABLED=false', () => {
  test('/console answers the API 404 like any unknown path; the API still works', async () => {
    const gw = await startTestGateway('sqlite', { CONSOLE_ENABLED: 'false' });
    try {
      const page = await gw.app.inject({ method: 'GET', url: '/console/login' });
      assert.equal(page.statusCode, 404);
      assert.match(String(page.headers['content-type']), /^application\/json/);
      const creds = await addMerchant(gw);
      assert.equal((await post(gw, '/transaction/s2s', initiationBody(creds))).body.responsecode, '9');
    } finally {
      await gw.close();
    }
  });
});

describe('behind a reverse proxy that mounts the gateway under a path', () => {
  test('links, form actions, redirects and the cookie path carry the PUBLIC_BASE_URL prefix', async () => {
    const gw = await startTestGateway('sqlite', { PUBLIC_BASE_URL: 'http://127.0.0.1:8080/pay' });
    try {
      await consoleOf(gw).accounts.createOperator({ username: 'op', password: OPERATOR_PASSWORD, totp: false });
      const b = new ConsoleClient(gw.app);
      // The proxy strips /pay: the gateway sees /console/…
      const bounced = await b.get('/console/deliveries?status=all');
      assert.equal(
        bounced.location,
        `/pay/console/login?next=${encodeURIComponent('/pay/console/deliveries?status=all')}`,
      );
      const form = await b.get('/console/login?next=%2Fpay%2Fconsole%2Fdeliveries%3Fstatus%3Dall');
      assert.match(form.body, /<form method="post" action="\/pay\/console\/login">/);
      const login = await b.post('/console/login', {
        csrf: b.csrf(),
        role: 'operator',
        username: 'op',
        password: OPERATOR_PASSWORD,
        next: '/pay/console/deliveries?status=all',
      });
      assert.equal(login.location, '/pay/console/deliveries?status=all');
      assert.match(
        String([login.headers['set-cookie']].flat().find((c) => String(c).startsWith('gw_console='))),
        /; Path=\/pay\/console;/,
      );
      const page = await b.get('/console/payments?state=FAILED');
      assert.match(
        page.body,
        /href="\/pay\/console\/payments\?state=FAILED&amp;lang=(en|th)"/,
        'the language switch keeps the prefix',
      );
      assert.match(page.body, /action="\/pay\/console\/logout"/);
    } finally {
      await gw.close();
    }
  });
});
