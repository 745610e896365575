// The operator CLI for notifications: delivery list | show | resend.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../support/dialects.ts';
import { TEST_SECRET_KEY_HEX, addMerchant, type MerchantCredentials } from '../support/test-gateway.ts';
import { runCli } from '../../src/cli/run-cli.ts';
import { Receiver, completePayment, eventOf, startDeliveryGateway, type DeliveryGateway } from '../support/delivery.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`delivery CLI [${dialect}]`, { skip }, () => {
    let d: DeliveryGateway;
    let receiver: Receiver;
    let creds: MerchantCredentials;
    let env: Record<string, string>;
    let eventId: string;
    let healthy = false;

    async function cli(...argv: string[]) {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) }, env);
      return { code, out: out.join('\n'), err: err.join('\n') };
    }

    before(async () => {
      receiver = await Receiver.start();
      d = await startDeliveryGateway(dialect, { RETRY_LADDER: '0,20ms' });
      env = {
        DATABASE_URL: d.gw.testStore.databaseUrl,
        GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX,
        CREATE_DEMO_MERCHANT: 'false',
      };
      creds = await addMerchant(d.gw);
      const url = receiver.on('/hook', (res) => res.writeHead(healthy ? 200 : 503).end(healthy ? 'ok' : 'maintenance'));
      const payment = await completePayment(d.gw, creds, url);
      await receiver.waitFor(() => receiver.requests.length === 2, 'both attempts');
      await d.worker.idle();
      eventId = (await eventOf(d.outbox, payment.transactionid)).id;
    });
    after(async () => {
      await d?.close();
      await receiver?.close();
    });

    test('list shows the failed notification, filtered by status and merchant', async () => {
      const all = await cli('delivery', 'list', '--json');
      assert.equal(all.code, 0, all.err);
      const { deliveries: rows } = JSON.parse(all.out);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].event_id, eventId);
      assert.equal(rows[0].status, 'failed');
      assert.equal(rows[0].attempts, 2);
      assert.equal(rows[0].last_error, 'HTTP 503');
      assert.equal(rows[0].merchantid, creds.merchantid);

      assert.equal(
        JSON.parse((await cli('delivery', 'list', '--status', 'failed', '--merchant', creds.merchantid, '--json')).out)
          .deliveries.length,
        1,
      );
      assert.deepEqual(JSON.parse((await cli('delivery', 'list', '--status', 'delivered', '--json')).out), {
        deliveries: [],
        next_cursor: null,
      });
      assert.deepEqual(JSON.parse((await cli('delivery', 'list', '--merchant', 'someone-else', '--json')).out), {
        deliveries: [],
        next_cursor: null,
      });

      const human = await cli('delivery', 'list', '--status', 'failed');
      assert.match(human.out, /^EVENT_ID\tSTATUS\t/, 'a header row names the columns');
      assert.match(human.out, new RegExp(`\n${eventId}\\tfailed`));
      assert.match(human.out, /HTTP 503/);
      assert.equal((await cli('delivery', 'list', '--status', 'lost')).code, 2);
    });

    test('list pages with --cursor: next_cursor is null on the last page, a bad cursor is a usage error', async () => {
      const first = JSON.parse((await cli('delivery', 'list', '--limit', '1', '--json')).out);
      assert.equal(first.deliveries.length, 1);
      assert.equal(first.next_cursor, null, 'one notification in this store: no further page');
      assert.equal((await cli('delivery', 'list', '--cursor', 'nonsense')).code, 2);
      const past = JSON.parse(
        (await cli('delivery', 'list', '--cursor', `0.${first.deliveries[0].event_id}`, '--json')).out,
      );
      assert.deepEqual(past, { deliveries: [], next_cursor: null }, 'nothing is older than created_at 0');
    });

    test('show lists every attempt with status, latency, answer excerpt and instance', async () => {
      const shown = await cli('delivery', 'show', eventId, '--json');
      assert.equal(shown.code, 0, shown.err);
      const event = JSON.parse(shown.out);
      assert.equal(event.status, 'failed');
      assert.equal(event.payload, (await d.outbox.findById(eventId))!.payload);
      assert.equal(event.attempt_log.length, 2);
      for (const a of event.attempt_log) {
        assert.equal(a.http_status, 503);
        assert.equal(a.response_excerpt, 'maintenance');
        assert.equal(a.instance_id, d.worker.instanceId);
        assert.equal(typeof a.latency_ms, 'number');
        assert.ok(!Number.isNaN(Date.parse(a.started_at)));
      }
      const human = await cli('delivery', 'show', eventId);
      assert.match(human.out, /#1 \(series 1\) .* HTTP 503 in \d+ ms/);
      const missing = await cli('delivery', 'show', 'evt_missing');
      assert.equal(missing.code, 1);
      assert.match(missing.err, /No notification event/);
    });

    test('resend starts a new series that the running worker delivers with the same id and body', async () => {
      healthy = true;
      const resent = await cli('delivery', 'resend', eventId);
      assert.equal(resent.code, 0, resent.err);
      assert.match(resent.out, /queued for delivery again \(series 2; it was failed\)/);
      await receiver.waitFor(() => receiver.requests.length === 3, 'the resent notification');
      await d.worker.idle();
      const [first, , third] = receiver.requests;
      assert.ok(third!.body.equals(first!.body));
      assert.equal(third!.headers['webhook-id'], eventId);
      const event = JSON.parse((await cli('delivery', 'show', eventId, '--json')).out);
      assert.equal(event.status, 'delivered');
      assert.equal(event.series, 2);
      assert.deepEqual(
        event.attempt_log.map((a: { series: number; http_status: number }) => [a.series, a.http_status]),
        [
          [1, 503],
          [1, 503],
          [2, 200],
        ],
      );
      assert.equal((await cli('delivery', 'resend')).code, 2, 'event id is required');
    });
  });
}
