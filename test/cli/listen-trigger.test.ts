// `gateway listen` and `gateway trigger` as real processes next to a running gateway: a payment
// initiated with the inbox as serverUrl and finished by `trigger` shows up in the inbox, verified
// with the merchant's secret from the store; a forged one is refused; --forward-to relays the
// local app's answer (so the gateway retries when the app fails).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { signWebhook, verifyWebhook } from '../../src/domain/webhook-signature.ts';
import { startCliServer } from '../support/cli-server.ts';
import { eventually, freePort, httpPost, runCliProcess } from '../support/gateway-process.ts';
import { initiation, startRunningGateway, type RunningGateway } from '../support/running-gateway.ts';
import { Receiver, sequence, answer } from '../support/delivery.ts';

type Listener = {
  child: ChildProcess;
  url: string;
  out: () => string;
  lines: () => any[];
  stop(): Promise<number | null>;
};

async function startListen(env: Record<string, string>, args: string[]): Promise<Listener> {
  const { child, out, err, exited } = startCliServer('listen', args, env);
  await eventually(
    async () => /Listening for notifications on http:\/\//.test(err()) || child.exitCode !== null,
    15_000,
    50,
  );
  const url = /Listening for notifications on (http:\/\/\S+) /.exec(err())?.[1];
  assert.ok(url, `listen did not start: ${err()}`);
  return {
    child,
    url,
    out,
    lines: () =>
      out()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    async stop() {
      child.kill('SIGINT');
      return exited;
    },
  };
}

describe('gateway listen / trigger', () => {
  let gw: RunningGateway;
  const listeners: Listener[] = [];
  let receiver: Receiver;

  before(async () => {
    gw = await startRunningGateway();
    receiver = await Receiver.start();
  });
  after(async () => {
    for (const l of listeners) if (l.child.exitCode === null) l.child.kill('SIGKILL');
    await gw?.close();
    await receiver?.close();
  });

  async function pay(serverUrl: string, trackid: string): Promise<string> {
    const init = await httpPost(`${gw.url}/transaction/s2s`, initiation(gw.creds, serverUrl, trackid));
    assert.equal(init.status, 200, JSON.stringify(init.body));
    return init.body.transactionid as string;
  }

  test(
    'a payment finished by trigger arrives in listen ' + '--json, verified, and the gateway records it delivered',
    async () => {
      const listen = await startListen(gw.env, ['--json', '--merchant', gw.creds.merchantid]);
      listeners.push(listen);
      const id = await pay(listen.url, 'listen-1');
      const trigger = await runCliProcess(['trigger', id, '--outcome', 'failed', '--json'], gw.env);
      assert.equal(trigger.code, 0, trigger.stderr);
      const status = JSON.parse(trigger.stdout);
      assert.equal(status.transactionid, id);
      assert.equal(status.result, 'Not Successful');
      assert.equal(status.error_code_tag, 'DECLINED');

      await eventually(async () => listen.lines().length >= 1, 15_000);
      const [entry] = listen.lines();
      assert.equal(entry.verified, true);
      assert.equal(entry.reason, null);
      assert.equal(entry.answered, 200);
      assert.equal(entry.merchantid, gw.creds.merchantid);
      assert.equal(entry.event.transactionid, id);
      assert.equal(entry.event.error_code_tag, 'DECLINED');
      assert.equal(entry.webhook_id, entry.event.event_id);

      // The API sees the same final state, and the gateway counts the notification delivered.
      const api = await httpPost(`${gw.url}/transaction/status`, {
        merchantid: gw.creds.merchantid,
        password: gw.creds.password,
        transactionid: id,
      });
      assert.equal(api.body.error_code_tag, 'DECLINED');
      await eventually(async () => {
        const list = await runCliProcess(['delivery', 'list', '--merchant', gw.creds.merchantid, '--json'], gw.env);
        return JSON.parse(list.stdout).deliveries.some((d: any) => d.transactionid === id && d.status === 'delivered');
      }, 15_000);

      // A forged notification (signed with another secret) is refused with 401 and reported.
      const body = JSON.stringify({ ...entry.event, bill_amount: '1.00' });
      const ts = Math.floor(Date.now() / 1000);
      const forged = await fetch(listen.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': 'evt_forged',
          'webhook-timestamp': String(ts),
          'webhook-signature': signWebhook(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], 'evt_forged', ts, body),
        },
        body,
      });
      assert.equal(forged.status, 401);
      await eventually(async () => listen.lines().length >= 2, 5_000);
      assert.deepEqual(
        { ...listen.lines()[1], received_at: 'x' },
        {
          received_at: 'x',
          verified: false,
          reason: 'no signature matched',
          webhook_id: 'evt_forged',
          merchantid: gw.creds.merchantid,
          event: JSON.parse(body),
          forwarded: null,
          answered: 401,
        },
      );

      // Correctly signed, but for another merchant than --merchant: refused.
      const other = JSON.parse(
        (
          await runCliProcess(
            [
              'merchant',
              'create',
              '--name',
              'Other Shop',
              '--payout-currency',
              'THB',
              '--payout-account',
              '1234567890',
              '--json',
            ],
            gw.env,
          )
        ).stdout,
      );
      const otherBody = JSON.stringify({ ...entry.event, merchantid: other.merchantid });
      const signedByOther = await fetch(listen.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': 'evt_other',
          'webhook-timestamp': String(ts),
          'webhook-signature': signWebhook([other.webhook_secret], 'evt_other', ts, otherBody),
        },
        body: otherBody,
      });
      assert.equal(signedByOther.status, 401);
      await eventually(async () => listen.lines().length >= 3, 5_000);
      assert.equal(listen.lines()[2].reason, `for merchant ${other.merchantid}, not ${gw.creds.merchantid}`);
      assert.equal((await fetch(listen.url)).status, 405, 'only POST');
      assert.equal(await listen.stop(), 0, 'Ctrl-C ends listen cleanly');
    },
  );

  test('--forward-to an app that is not running answers the gateway 502', async () => {
    const closedPort = await freePort(); // nothing listens there
    const listen = await startListen(gw.env, ['--json', '--forward-to', `http://127.0.0.1:${closedPort}/down`]);
    listeners.push(listen);
    const id = await pay(listen.url, 'listen-5');
    assert.equal((await runCliProcess(['trigger', id, '--outcome', 'expired'], gw.env)).code, 0);
    await eventually(async () => listen.lines().length >= 1, 15_000);
    const [entry] = listen.lines();
    assert.equal(entry.verified, true);
    assert.equal(entry.answered, 502);
    assert.equal(entry.forwarded.status, null);
    assert.equal(entry.forwarded.error, 'ECONNREFUSED');
    await listen.stop();
  });

  test(
    '--forward-to relays the notification unchanged and the ' + 'local app’s answer; the gateway retries a failure',
    async () => {
      const appUrl = receiver.on('/app/notify', sequence(answer(503), answer(200)));
      const listen = await startListen(gw.env, ['--json', '--forward-to', appUrl]);
      listeners.push(listen);
      const id = await pay(listen.url, 'listen-2');
      assert.equal((await runCliProcess(['trigger', id, '--outcome', 'success'], gw.env)).code, 0);
      await eventually(async () => listen.lines().length >= 2, 20_000);
      const [first, second] = listen.lines();
      assert.deepEqual([first.forwarded.status, first.answered], [503, 503]);
      assert.deepEqual([second.forwarded.status, second.answered], [200, 200]);
      assert.equal(second.webhook_id, first.webhook_id, 'a retry of the same event');
      const forwarded = receiver.requests.filter((r) => r.path === '/app/notify');
      assert.equal(forwarded.length, 2);
      // The app receives what the gateway sent: it can verify the signature itself.
      assert.deepEqual(
        verifyWebhook(gw.creds.webhook_secret, forwarded[1]!.headers as Record<string, string>, forwarded[1]!.body),
        { ok: true },
      );
      assert.equal(JSON.parse(forwarded[1]!.body.toString('utf8')).transactionid, id);
      await listen.stop();
    },
  );

  test('human output names the outcome, amount and references', async () => {
    const listen = await startListen(gw.env, []);
    listeners.push(listen);
    const id = await pay(listen.url, 'listen-3');
    const trigger = await runCliProcess(['trigger', id], gw.env);
    assert.equal(trigger.code, 0, trigger.stderr);
    assert.match(trigger.stdout, new RegExp(`Transaction ${id} is now CAPTURED`));
    await eventually(async () => listen.out().includes('\n'), 15_000);
    assert.match(
      listen.out(),
      new RegExp(
        `✓ payment CAPTURED  1000\\.00 THB  trackid listen-3  transaction ${id} .*\\(signature verified\\)  → 200`,
      ),
    );
    await listen.stop();
  });

  test('trigger refuses what it cannot do', async () => {
    const unknown = await runCliProcess(
      ['trigger', '01900000-0000-7000-8000-000000000000', '--outcome', 'success'],
      gw.env,
    );
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No transaction/);
    const badOutcome = await runCliProcess(['trigger', 'x', '--outcome', 'maybe'], gw.env);
    assert.equal(badOutcome.code, 2);
    assert.match(badOutcome.stderr, /--outcome must be one of success, failed, cancelled, expired/);
    const id = await pay('http://127.0.0.1:9/unused', 'listen-4');
    assert.equal((await runCliProcess(['trigger', id, '--outcome', 'cancelled'], gw.env)).code, 0);
    const again = await runCliProcess(['trigger', id, '--outcome', 'success'], gw.env);
    assert.equal(again.code, 1, 'a final payment stays final');
    const live = await runCliProcess(['trigger', id, '--outcome', 'success'], {
      ...gw.env,
      GATEWAY_MODE: 'live',
      PUBLIC_BASE_URL: 'https://pay.example',
    });
    assert.equal(live.code, 1);
    assert.match(live.stderr, /sandbox mode only/);
    const listenUnknown = await runCliProcess(['listen', '--merchant', 'nobody', '--port', '0'], gw.env);
    assert.equal(listenUnknown.code, 1);
    assert.match(listenUnknown.stderr, /No merchant nobody/);
  });
});
