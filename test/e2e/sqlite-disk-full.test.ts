// The SQLite file store on a disk that fills up (a real tmpfs, mounted for the test). While writes
// fail, initiations answer 503 SERVICE_UNAVAILABLE (never 500) and /readyz says unavailable; once
// space is freed, readiness and payments come back by themselves (docs/operations.md "How faults
// answer"). Mounting needs root (CAP_SYS_ADMIN); without it the test is skipped with that reason.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
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
import { assertErrorBody } from '../support/error-body.ts';
import { fillDisk, mountTmpfs } from '../support/tmpfs.ts';

const mounted = mountTmpfs(16);

describe('SQLite on a full disk', { skip: typeof mounted === 'string' ? mounted : false }, () => {
  const fs = mounted as { dir: string; unmount(): void };
  let gateway: GatewayProcess;
  let env: Record<string, string>;
  let creds: { merchantid: string; password: string };
  let serial = 0;

  before(async () => {
    env = {
      DATABASE_URL: `sqlite:${join(fs.dir, 'gateway.db')}`,
      GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX,
      CREATE_DEMO_MERCHANT: 'false',
    };
    const created = await runCliProcess(
      [
        'merchant',
        'create',
        '--name',
        'Full Disk Shop',
        '--payout-currency',
        'THB',
        '--payout-account',
        '1234567890',
        '--json',
      ],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    creds = JSON.parse(created.stdout);
    gateway = await startGatewayProcess(env);
  });
  after(async () => {
    await gateway?.stop();
    await killLeftoverGateways();
    fs.unmount();
  });

  const initiate = () =>
    httpPost(
      `${gateway.url}/transaction/s2s`,
      initiationBody(creds, {
        trackid: `full-${++serial}`,
        bill_amount: '150.00',
        serverUrl: 'http://127.0.0.1:9/notify',
        productdesc: 'x'.repeat(1000),
      }),
    );
  const readyStatus = async () => (await fetch(`${gateway.url}/readyz`)).status;

  test('writes fail with 503 and /readyz goes unavailable; freeing space brings both back', async () => {
    assert.equal((await initiate()).status, 200, 'works before the disk fills');
    assert.equal(await readyStatus(), 200);

    // A write that fails for lack of space makes the gateway checkpoint its WAL at the next write,
    // which gives space back (docs/operations.md "Disk space"): fill that too, until writes fail with
    // nothing left to give back.
    const fillers: string[] = [];
    let failed: Awaited<ReturnType<typeof initiate>> | undefined;
    let stillFull = false;
    const statuses = new Map<number, number>();
    for (let round = 0; round < 5 && !stillFull; round++) {
      fillers.push(fillDisk(fs.dir, `filler-${round}`));
      // Space the store had already reserved may absorb some writes; keep writing until one fails.
      failed = undefined;
      for (let i = 0; i < 3000 && !failed; i++) {
        const res = await initiate();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status !== 200) failed = res;
      }
      assert.ok(failed, `no write failed on a full disk: ${JSON.stringify([...statuses])}`);
      assertErrorBody(
        { ...failed, headers: Object.fromEntries(failed.headers), raw: JSON.stringify(failed.body) },
        { status: 503, code: '5003', tag: 'SERVICE_UNAVAILABLE' },
      );
      stillFull = (await readyStatus()) === 503 && (await initiate()).status === 503;
    }
    assert.ok(stillFull, '/readyz says unavailable while writes fail, and still full: still 503');
    assert.equal(await readyStatus(), 503, '/readyz still says unavailable');

    for (const filler of fillers) rmSync(filler);
    await eventually(async () => (await readyStatus()) === 200, 10_000);
    assert.equal((await initiate()).status, 200, 'payments resume once there is space');
    assert.match(gateway.stderr() + gateway.stdout(), /store unavailable/, 'the fault was logged');
  });
});
