// The console's login limit under concurrency, over real sockets on both stores: attempts are
// counted before the password is hashed (docs/console.md "Sessions and security"), so 20 wrong
// guesses sent at once for one account from one address get at most CONSOLE_LOGIN_LIMIT checks
// (each a 401 and a `login.failed` audit entry) and the rest 429 — for passwords and for TOTP codes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { testDialects } from '../../support/dialects.ts';
import { startTestGateway, type TestGateway } from '../../support/test-gateway.ts';
import { consoleOf, OPERATOR_PASSWORD } from '../../support/console-client.ts';

const LIMIT = 10;

for (const { dialect, skip } of await testDialects()) {
  describe(`console login limit under concurrency (${dialect})`, { skip }, () => {
    let gw: TestGateway;
    let base: string;

    before(async () => {
      gw = await startTestGateway(dialect, {
        CONSOLE_LOGIN_LIMIT: String(LIMIT),
        CONSOLE_LOGIN_WINDOW: '15m',
        TRUST_PROXY: 'loopback',
      });
      const c = consoleOf(gw);
      await c.accounts.createOperator({ username: 'op-race', password: OPERATOR_PASSWORD, totp: false });
      await c.accounts.createOperator({ username: 'op-totp-race', password: OPERATOR_PASSWORD, totp: true });
      await gw.app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
    });
    after(() => gw?.close());

    /** Opens the login form from `address` and posts `count` logins at once; the statuses, sorted. */
    async function raceLogins(address: string, count: number, fields: Record<string, string>): Promise<number[]> {
      const form = await fetch(`${base}/console/login`, { headers: { 'x-forwarded-for': address } });
      const cookie = form.headers
        .getSetCookie()
        .map((line) => line.split(';')[0])
        .join('; ');
      const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
      const body = new URLSearchParams({ csrf, role: 'operator', totp: '', next: '', ...fields }).toString();
      const answers = await Promise.all(
        Array.from({ length: count }, () =>
          fetch(`${base}/console/login`, {
            method: 'POST',
            redirect: 'manual',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              cookie,
              'x-forwarded-for': address,
            },
            body,
          }).then(async (r) => {
            await r.arrayBuffer();
            return r.status;
          }),
        ),
      );
      return answers.sort();
    }

    async function failuresAudited(target: string): Promise<number> {
      const audit = await gw.services.store.consoleAccounts.listAudit({ limit: 100, action: 'login.failed' });
      return audit.filter((e) => e.target === target).length;
    }

    test(`20 concurrent wrong passwords for one account from one address: ${LIMIT} checked, the rest 429`, async () => {
      const statuses = await raceLogins('198.51.100.20', 20, { username: 'op-race', password: 'wrong password 1' });
      assert.deepEqual(statuses, [...Array(LIMIT).fill(401), ...Array(20 - LIMIT).fill(429)]);
      assert.equal(await failuresAudited('operator:op-race'), LIMIT, 'one audit entry per checked guess');
    });

    test(`20 concurrent wrong TOTP codes with the right password: ${LIMIT} checked, the rest 429`, async () => {
      const statuses = await raceLogins('198.51.100.21', 20, {
        username: 'op-totp-race',
        password: OPERATOR_PASSWORD,
        totp: '000000',
      });
      assert.deepEqual(statuses, [...Array(LIMIT).fill(401), ...Array(20 - LIMIT).fill(429)]);
      assert.equal(await failuresAudited('operator:op-totp-race'), LIMIT);
    });
  });
}
