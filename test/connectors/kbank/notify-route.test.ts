// POST /processor/kbank/notify/:token (connectors/kbank/notify-route.ts) in the gateway as main.ts
// builds it, with the KBank connector against kbank-sim: a wrong token is an unknown path, the
// address allow-list (through TRUST_PROXY), JSON only and small, and whatever the body says KBank
// gets its envelope at once while the outcome is logged (and the token never is).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startKbankSim, type KbankSim } from '../../../src/dev/kbank-sim/server.ts';
import { testDialects } from '../../support/dialects.ts';
import { addMerchant, initiationBody, post, startTestGateway, type TestGateway } from '../../support/test-gateway.ts';
import { kbankEnvFor } from '../../support/connector-harnesses.ts';

const TOKEN = 'Zq7_callback-path-token-0123456789abcdef';
const PATH = `/processor/kbank/notify/${TOKEN}`;
const ENVELOPE = { statusCode: '00', errorCode: null, errorDesc: null };

function kbankEnv(sim: KbankSim, extra: Record<string, string> = {}): Record<string, string> {
  return { ...kbankEnvFor(sim, TOKEN), TRANSACTION_TTL: '10m', ...extra };
}

const sqlite = (await testDialects()).find((d) => d.dialect === 'sqlite')!;

describe('the KBank callback route', { skip: sqlite.skip }, () => {
  let sim: KbankSim;
  let gw: TestGateway;
  before(async () => {
    sim = await startKbankSim();
    gw = await startTestGateway('sqlite', kbankEnv(sim));
  });
  after(async () => {
    await gw?.close();
    await sim?.close();
  });

  const notify = (payload: string, headers: Record<string, string> = {}, path = PATH, remoteAddress?: string) =>
    gw.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/json', ...headers },
      payload,
      ...(remoteAddress !== undefined && { remoteAddress }),
    });

  test("a payment's callback is recorded against its attempt and answered with KBank's envelope", async () => {
    const creds = await addMerchant(gw);
    const initiated = await post(gw, '/transaction/s2s', initiationBody(creds, { trackid: 'kbank-cb-1' }));
    assert.equal(initiated.status, 200);
    const transactionId = initiated.body.transactionid as string;
    // What the hosted page does at the first view: the QR at KBank.
    const transaction = await gw.services.transactions.findById(creds.merchantid, transactionId);
    await gw.services.processor.paymentQr.ensure(transaction!);
    const attempt = await gw.services.store.processorAttempts.latest(transactionId, 'qr');
    assert.equal(attempt?.state, 'requested', 'the QR was created at KBank');
    const paid = sim.pay(attempt!.reference);
    assert.ok(paid.ok);
    const { body } = await paid.callback;

    const answer = await notify(body);
    assert.equal(answer.statusCode, 200);
    assert.deepEqual(answer.json(), ENVELOPE);
    const [recorded] = await gw.services.store.processorNotifications.forTransaction(transactionId);
    assert.equal(recorded?.outcome, 'checked');
    assert.equal(recorded?.reference, attempt!.reference);
    assert.equal(recorded?.processorTxnNo, paid.record.txnNo);
    assert.ok(gw.logs.lines.some((l) => /"outcome":"checked".*KBank callback received/.test(l)));
  });

  test('a wrong token is answered exactly like an unknown path, before the body is read', async () => {
    const body = '{"partnerTxnUid":"Q00000000000001"}';
    for (const wrong of [TOKEN.replace('Z', 'Y'), 'short', 'A'.repeat(TOKEN.length + 1)]) {
      const refused = await notify(body, {}, `/processor/kbank/notify/${wrong}`);
      const unknown = await notify(body, {}, `/processor/kbank/elsewhere/${wrong}`);
      assert.equal(refused.statusCode, 404);
      assert.equal(refused.statusCode, unknown.statusCode);
      assert.equal(refused.headers['content-type'], unknown.headers['content-type']);
      const same = (json: Record<string, unknown>) => ({ ...json, error_text: String(json.error_text).split(' /')[0] });
      assert.deepEqual(same(refused.json()), same(unknown.json()));
      assert.match(refused.json().error_text, /^There is no operation POST \/processor\/kbank\/notify\//);
    }
    const huge = await notify('x'.repeat(64 * 1024), {}, '/processor/kbank/notify/wrong');
    assert.equal(huge.statusCode, 404, 'not 413: nothing about the route is told without the token');
  });

  test('malformed JSON is answered with the envelope all the same, and logged as unreadable', async () => {
    const answer = await notify('{"partnerTxnUid":"Q0000');
    assert.equal(answer.statusCode, 200);
    assert.deepEqual(answer.json(), ENVELOPE);
    assert.ok(gw.logs.lines.some((l) => /"outcome":"unreadable".*KBank callback received: unreadable/.test(l)));
  });

  test('a callback for a QR we never made is answered, and logged as unknown', async () => {
    const answer = await notify(JSON.stringify({ partnerTxnUid: 'QNOTOURS0000001', statusCode: '00' }));
    assert.deepEqual(answer.json(), ENVELOPE);
    assert.ok(gw.logs.lines.some((l) => /"outcome":"unknown"/.test(l)));
  });

  test('a body over 16 KiB is refused (413) and never recorded', async () => {
    const big = JSON.stringify({ partnerTxnUid: 'QNOTOURS0000002', padding: 'x'.repeat(17 * 1024) });
    const answer = await notify(big);
    assert.equal(answer.statusCode, 413);
    assert.ok(!gw.logs.text.includes('QNOTOURS0000002'));
  });

  test('JSON only', async () => {
    const answer = await notify('partnerTxnUid=Q1', { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(answer.statusCode, 415);
  });

  test('the path token is never logged', () => {
    assert.ok(!gw.logs.text.includes(TOKEN));
    assert.ok(gw.logs.text.includes('/processor/kbank/notify/[redacted]'));
  });

  test('the sandbox connector has no such route', async () => {
    const sandbox = await startTestGateway('sqlite');
    try {
      const answer = await sandbox.app.inject({
        method: 'POST',
        url: PATH,
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(answer.statusCode, 404);
    } finally {
      await sandbox.close();
    }
  });
});

describe('the KBank callback route with KBANK_CALLBACK_ALLOW_CIDRS', { skip: sqlite.skip }, () => {
  let sim: KbankSim;
  let direct: TestGateway;
  let proxied: TestGateway;
  before(async () => {
    sim = await startKbankSim();
    const allow = { KBANK_CALLBACK_ALLOW_CIDRS: '203.0.113.0/24,2001:db8::/32' };
    direct = await startTestGateway('sqlite', kbankEnv(sim, allow));
    proxied = await startTestGateway('sqlite', kbankEnv(sim, { ...allow, TRUST_PROXY: '127.0.0.1' }));
  });
  after(async () => {
    await direct?.close();
    await proxied?.close();
    await sim?.close();
  });

  const from = (gw: TestGateway, remoteAddress: string, headers: Record<string, string> = {}) =>
    gw.app.inject({
      method: 'POST',
      url: PATH,
      headers: { 'content-type': 'application/json', ...headers },
      payload: '{"partnerTxnUid":"QNOTOURS0000003"}',
      remoteAddress,
    });

  test('only the listed addresses may call; others get 403 and a warning', async () => {
    assert.equal((await from(direct, '203.0.113.9')).statusCode, 200);
    assert.equal((await from(direct, '::ffff:203.0.113.10')).statusCode, 200, 'IPv4 on a dual-stack socket');
    assert.equal((await from(direct, '2001:db8::7')).statusCode, 200);
    const refused = await from(direct, '198.51.100.1');
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().statusCode, '10');
    assert.ok(direct.logs.lines.some((l) => /198\.51\.100\.1.*not in KBANK_CALLBACK_ALLOW_CIDRS/.test(l)));
  });

  test("the client's address is the one TRUST_PROXY believes", async () => {
    assert.equal((await from(proxied, '127.0.0.1', { 'x-forwarded-for': '203.0.113.20' })).statusCode, 200);
    assert.equal((await from(proxied, '127.0.0.1', { 'x-forwarded-for': '198.51.100.2' })).statusCode, 403);
    // Without a trusted proxy the header is nobody's word.
    assert.equal((await from(direct, '198.51.100.3', { 'x-forwarded-for': '203.0.113.21' })).statusCode, 403);
  });
});
