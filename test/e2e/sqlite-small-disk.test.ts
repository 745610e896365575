// The SQLite store on small, full disks (real tmpfs mounts; needs root, skipped with the reason
// otherwise). Readiness means "a payment can be written now": with a little space back, too little
// for a payment, /readyz stays unavailable, and the data directory's free space is a metric. The
// WAL is checkpointed once space returns, so freed space is usable and stays usable
// (docs/operations.md "Disk space").
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  eventually,
  httpPost,
  killLeftoverGateways,
  runCliProcess,
  startGatewayProcess,
  type GatewayProcess,
} from '../support/gateway-process.ts';
import { initiationBody, TEST_SECRET_KEY_HEX } from '../support/test-gateway.ts';
import { fillDisk, mountTmpfs, type Tmpfs } from '../support/tmpfs.ts';

after(killLeftoverGateways);

type Shop = { gateway: GatewayProcess; initiate(): Promise<number>; ready(): Promise<number>; dir: string };

async function startShop(t: { after(fn: () => unknown): void }, fs: Tmpfs): Promise<Shop> {
  const env = {
    DATABASE_URL: `sqlite:${join(fs.dir, 'gateway.db')}`,
    GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX,
    CREATE_DEMO_MERCHANT: 'false',
  };
  const created = await runCliProcess(
    [
      'merchant',
      'create',
      '--name',
      'Small Disk',
      '--payout-currency',
      'THB',
      '--payout-account',
      '1234567890',
      '--json',
    ],
    env,
  );
  assert.equal(created.code, 0, created.stderr);
  const creds = JSON.parse(created.stdout) as { merchantid: string; password: string };
  const gateway = await startGatewayProcess(env);
  t.after(() => gateway.stop());
  let serial = 0;
  return {
    gateway,
    dir: fs.dir,
    initiate: async () =>
      (
        await httpPost(
          `${gateway.url}/transaction/s2s`,
          initiationBody(creds, {
            trackid: `small-${++serial}`,
            bill_amount: '150.00',
            serverUrl: 'http://127.0.0.1:9/notify',
            productdesc: 'x'.repeat(1000),
          }),
        )
      ).status,
    ready: async () => (await fetch(`${gateway.url}/readyz`)).status,
  };
}

/** Initiates until one fails; that one must be a 503. */
async function initiateUntilFull(shop: Shop): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    const status = await shop.initiate();
    if (status === 200) continue;
    assert.equal(status, 503);
    return;
  }
  assert.fail('no initiation failed on a full disk');
}

const sizeOf = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

const big = mountTmpfs(16);
const small = mountTmpfs(2);
after(() => {
  if (typeof big !== 'string') big.unmount();
  if (typeof small !== 'string') small.unmount();
});

describe('readiness on a nearly full disk', { skip: typeof big === 'string' ? big : false }, () => {
  test('with space for a small row but not a payment, /readyz is 503 like the payments', async (t) => {
    const fs = big as Tmpfs;
    const shop = await startShop(t, fs);
    assert.equal(await shop.initiate(), 200);
    // 24 KB set aside: room for a one-row write, not for a payment's row and index pages.
    const slack = join(fs.dir, 'slack');
    writeFileSync(slack, Buffer.alloc(24 * 1024, 1));
    const filler = fillDisk(fs.dir);
    await initiateUntilFull(shop);
    assert.equal(await shop.ready(), 503);

    rmSync(slack);
    for (let round = 0; round < 5; round++) {
      const ready = await shop.ready();
      const initiated = await shop.initiate();
      assert.ok(
        ready !== 200 || initiated === 200,
        `round ${round}: /readyz answered 200 while an initiation then answered ${initiated}`,
      );
    }

    // A scrape is rendered at most once a second (app/gateway-metrics.ts), hence the waits.
    const freeMetric = async () => {
      const text = await (await fetch(`${shop.gateway.url}/metrics`)).text();
      return Number(/^gateway_data_dir_free_bytes (\d+)$/m.exec(text)?.[1]);
    };
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const free = await freeMetric();
    assert.ok(free < 256 * 1024, `gateway_data_dir_free_bytes on the full disk: ${free}`);

    rmSync(filler);
    await eventually(async () => (await shop.ready()) === 200, 10_000);
    assert.equal(await shop.initiate(), 200, 'payments resume once there is space');
    await eventually(async () => (await freeMetric()) > 8 * 1024 * 1024, 5_000);
  });
});

describe('the WAL on a 2 MB disk', { skip: typeof small === 'string' ? small : false }, () => {
  test('once space is freed the WAL is checkpointed and payments keep being written', async (t) => {
    const fs = small as Tmpfs;
    const shop = await startShop(t, fs);
    const db = join(fs.dir, 'gateway.db');
    const filler = fillDisk(fs.dir);
    await initiateUntilFull(shop);
    rmSync(filler);

    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push(await shop.initiate());
    const failed = statuses.findIndex((s) => s !== 200);
    const sizes = `database ${sizeOf(db)} B, WAL ${sizeOf(`${db}-wal`)} B`;
    assert.equal(
      failed,
      -1,
      `initiation ${failed + 1} after the space came back answered ${statuses[failed]}; ${sizes}`,
    );
    assert.ok(sizeOf(`${db}-wal`) < 1024 * 1024, `the WAL stays small: ${sizes}`);
    assert.ok(sizeOf(db) > 100 * 1024, `the payments are in the database file: ${sizes}`);
    t.diagnostic(sizes);
  });
});
