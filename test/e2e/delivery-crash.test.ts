// At-least-once across a crash: a gateway PROCESS is killed with SIGKILL while notifications
// are in flight (the receiver is holding them) and pending (answered 500, retry scheduled);
// a restarted gateway on the same store delivers every one of them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../support/dialects.ts';
import { createTestDatabase } from '../support/test-store.ts';
import { Receiver, type Behaviour } from '../support/delivery.ts';
import { cliJson, createMerchant, gatewayEnv, payThrough } from '../support/delivery-process.ts';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.ts';

const PAYMENTS = 30;

for (const { dialect, skip } of await testDialects()) {
  describe(`delivery survives SIGKILL [${dialect}]`, { skip }, () => {
    let receiver: Receiver;
    let database: { databaseUrl: string; drop(): Promise<void> };
    const running: GatewayProcess[] = [];

    before(async () => {
      receiver = await Receiver.start();
      database = await createTestDatabase(dialect);
    });
    after(async () => {
      for (const g of running) g.child.kill('SIGKILL');
      await Promise.all(running.map((g) => g.exited));
      await receiver?.close();
      await database?.drop();
    });

    test('every event is delivered at least once after a kill -9 and a restart, none lost', async () => {
      const env = gatewayEnv(database.databaseUrl, {
        RETRY_LADDER: '0,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s',
        DELIVERY_TIMEOUT: '5s', // held requests stay in flight until the kill
        DELIVERY_LEASE: '6s', // PostgreSQL: the dead instance's claims come back after this
        DELIVERY_POLL_INTERVAL: '200ms',
        DELIVERY_CONCURRENCY: '64', // every event in flight at once, so the kill catches many
        DELIVERY_PER_HOST_CONCURRENCY: '64',
      });
      const creds = await createMerchant(env, 'Crash Shop');

      // Before the crash: half the first attempts are answered 500 (pending with a retry
      // scheduled), the rest are held open (in flight). After it: 200 for everything.
      let healthy = false;
      const firstSeen = new Set<string>();
      const deliveredTx = new Set<string>();
      const behaviour: Behaviour = (res, req, n) => {
        void n;
        const body = receiver.requests.at(-1)!.body; // the request being answered
        const tx = JSON.parse(body.toString()).transactionid as string;
        const id = String(req.headers['webhook-id']);
        if (healthy) {
          res.on('finish', () => deliveredTx.add(tx));
          res.writeHead(200).end('ok');
          return;
        }
        const first = !firstSeen.has(id);
        firstSeen.add(id);
        if (first && firstSeen.size % 2 === 0) res.writeHead(500).end('not now');
        // otherwise: hold the request open
      };
      const serverUrl = receiver.on('/hook', behaviour);

      const first = await startGatewayProcess(env);
      running.push(first);
      const transactions: string[] = [];
      for (let i = 0; i < PAYMENTS; i++) transactions.push(await payThrough(first.url, creds, serverUrl, `crash-${i}`));
      await receiver.waitFor(() => firstSeen.size === PAYMENTS, 'a first attempt of every event');
      const inFlight = receiver.requests.filter((r) => r.open).length;

      first.child.kill('SIGKILL');
      assert.equal((await first.exited).signal, 'SIGKILL');
      assert.ok(inFlight > 0, 'some deliveries were in flight at the kill');
      type Listed = { deliveries: Array<{ status: string; event_id: string }> };
      const beforeRestart = (await cliJson<Listed>(env, ['delivery', 'list', '--json', '--limit', '1000'])).deliveries;
      assert.equal(beforeRestart.length, PAYMENTS, 'every final state has its outbox event');
      assert.ok(
        beforeRestart.every((e) => e.status === 'pending'),
        'nothing was delivered before the crash',
      );
      assert.equal(deliveredTx.size, 0);

      healthy = true;
      const second = await startGatewayProcess(env);
      running.push(second);
      await receiver.waitFor(
        () => transactions.every((t) => deliveredTx.has(t)),
        'every event delivered after the restart',
        30_000,
      );

      // The store agrees once the restarted gateway has recorded its last attempts.
      let events = beforeRestart;
      for (let i = 0; i < 50 && events.some((e) => e.status !== 'delivered'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        events = (await cliJson<Listed>(env, ['delivery', 'list', '--json', '--limit', '1000'])).deliveries;
      }
      assert.deepEqual(
        events.filter((e) => e.status !== 'delivered'),
        [],
      );
      const shown = await cliJson<{ attempt_log: Array<{ http_status: number | null }>; status: string }>(env, [
        'delivery',
        'show',
        events[0]!.event_id,
        '--json',
      ]);
      assert.equal(shown.status, 'delivered');
      assert.equal(shown.attempt_log.at(-1)!.http_status, 200);

      // Graceful stop: SIGTERM finishes and exits 0.
      second.child.kill('SIGTERM');
      assert.deepEqual(await second.exited, { code: 0, signal: null });
    });
  });
}
