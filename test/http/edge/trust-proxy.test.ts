// Behind a load balancer (docs/deployment.md "Behind a load balancer") every client shares the
// proxy's address. With TRUST_PROXY naming the proxy, the failed-login lockout is per real client
// (X-Forwarded-For), so one client's failures do not lock a merchant out for everyone; without it,
// the header is ignored, so a client cannot dodge its lockout by inventing addresses.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addMerchant,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { loadConfig } from '../../../src/config.ts';

const LIMIT = 3;

async function statusQuery(gw: TestGateway, creds: { merchantid: string; password: string }, client: string) {
  return post(gw, '/transaction/status', { ...creds, trackid: 'none' }, { 'x-forwarded-for': client });
}

describe('TRUST_PROXY=127.0.0.1 (inject connects from 127.0.0.1, the "proxy")', () => {
  let gw: TestGateway;
  let creds: MerchantCredentials;
  before(async () => {
    gw = await startTestGateway('sqlite', { TRUST_PROXY: '127.0.0.1', FAILED_LOGIN_LIMIT: String(LIMIT) });
    creds = await addMerchant(gw);
  });
  after(() => gw?.close());

  test("one client's failed logins lock out that client only", async () => {
    for (let i = 0; i < LIMIT; i++)
      assert.equal((await statusQuery(gw, { ...creds, password: 'wrong' }, '198.51.100.1')).status, 401);
    assert.equal((await statusQuery(gw, creds, '198.51.100.1')).status, 429, 'the failing client is locked out');
    assert.equal(
      (await statusQuery(gw, creds, '198.51.100.2')).status,
      404,
      'another client of the same merchant is not (404: no such trackid)',
    );
  });
});

describe('TRUST_PROXY unset (default false)', () => {
  let gw: TestGateway;
  let creds: MerchantCredentials;
  before(async () => {
    gw = await startTestGateway('sqlite', { FAILED_LOGIN_LIMIT: String(LIMIT) });
    creds = await addMerchant(gw);
  });
  after(() => gw?.close());

  test('X-Forwarded-For is ignored: changing it does not escape a lockout', async () => {
    for (let i = 0; i < LIMIT; i++)
      assert.equal((await statusQuery(gw, { ...creds, password: 'wrong' }, `198.51.100.${i}`)).status, 401);
    assert.equal((await statusQuery(gw, creds, '198.51.100.99')).status, 429);
  });
});

describe('TRUST_PROXY values', () => {
  const parse = (value: string) => loadConfig({ TRUST_PROXY: value }).trustProxy;
  test('false, true and address / CIDR lists', () => {
    assert.equal(parse('false'), false);
    assert.equal(parse('true'), true);
    assert.deepEqual(parse('10.0.0.0/8, 192.168.1.1,loopback,::1,fd00::/8'), [
      '10.0.0.0/8',
      '192.168.1.1',
      'loopback',
      '::1',
      'fd00::/8',
    ]);
  });
  // A hop count is refused: Fastify 5 ignores it, so it would start and silently trust nobody.
  test('a hop count stops the start with a sentence saying to list the proxies instead', () => {
    assert.throws(() => parse('1'), /TRUST_PROXY="1": a hop count .* list the proxies' addresses/);
  });
  for (const bad of ['10.0.0.0/33', 'proxy.example', '1.2.3', 'fd00::/129', '99', '2']) {
    test(`"${bad}" stops the start naming TRUST_PROXY`, () => {
      assert.throws(() => parse(bad), /TRUST_PROXY/);
    });
  }
});
