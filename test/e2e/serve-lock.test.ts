// One `serve` per SQLite file (src/store/sqlite/serve-lock.ts, docs/operations.md "One SQLite
// file, one server"): a second `npm start` on the same file refuses to start, naming the file and
// the running process; the CLI works beside the running server; a lock left by a killed server is
// taken over; a stopped server leaves no lock behind.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { killLeftoverGateways, runCliProcess, startGatewayProcess } from '../support/gateway-process.ts';
import { startRunningGateway } from '../support/running-gateway.ts';

after(killLeftoverGateways);

test(
  'a second serve on one SQLite file exits 1 naming the file and the pid; the CLI works beside it; a stale ' +
    'lock is taken over; a stopped server removes its lock',
  async () => {
    const gw = await startRunningGateway({ dialect: 'sqlite' });
    try {
      const database = gw.env.DATABASE_URL!.slice('sqlite:'.length);
      const lockFile = `${database}.lock`;
      const firstPid = gw.process.child.pid!;
      assert.equal(readFileSync(lockFile, 'utf8').trim(), String(firstPid));

      // `npm start` again, on another port: refused (on the old code it came up and served).
      const second = await runCliProcess([], { ...gw.env, PORT: '0' }, 'src/main.ts', 60_000);
      assert.equal(second.code, 1, `${second.stdout}\n${second.stderr}`);
      assert.ok(second.stderr.includes(database), second.stderr);
      assert.ok(second.stderr.includes(`pid ${firstPid}`), second.stderr);
      assert.doesNotMatch(second.stdout, /listening on/);
      assert.equal(readFileSync(lockFile, 'utf8').trim(), String(firstPid), 'the refused process left the lock alone');

      // The operator CLI beside the running server.
      const listed = await runCliProcess(['merchant', 'list', '--json'], gw.env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.ok(listed.stdout.includes(gw.creds.merchantid));
      const payment = await fetch(`${gw.url}/healthz`);
      assert.equal(payment.status, 200, 'the first server still serves');

      // Killed without a chance to clean up: its lock stays, with a pid that no longer runs.
      assert.equal(await gw.process.stop('SIGKILL'), null);
      assert.ok(existsSync(lockFile));
      const next = await startGatewayProcess(gw.env, 60_000);
      try {
        assert.equal(readFileSync(lockFile, 'utf8').trim(), String(next.child.pid));
      } finally {
        const code = await next.stop();
        assert.equal(
          code,
          0,
          `${await next.exited.then((e) => JSON.stringify(e))}\n${next.stdout()}\n${next.stderr()}`,
        );
      }
      assert.equal(existsSync(lockFile), false, 'a stopped server removes its lock');
    } finally {
      await gw.close();
    }
  },
);
