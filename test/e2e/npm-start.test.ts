// What the README tells people to run, run as they would. `npm start` must pass SIGTERM on
// to the gateway (a supervisor or container signals only the process it started), and the README's
// PostgreSQL example, run literally, must give two working instances and a working CLI.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgresCase } from '../support/dialects.ts';
import { createTestDatabase } from '../support/test-store.ts';
import { fixture } from '../support/test-gateway.ts';
import { eventually, freePort, gatewayEnv, httpPost } from '../support/gateway-process.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const hasNpm = spawnSync('npm', ['--version'], { stdio: 'ignore' }).status === 0;
if (!hasNpm && process.env.CI === 'true')
  throw new Error('CI=true but npm is not on PATH: the README commands must be tested in CI.');
const skipNoNpm = hasNpm ? false : 'npm is not on PATH, so the README commands cannot be run as written';

/** A process group we started (detached), with its output. */
type Group = { child: ChildProcess; output: () => string; exited: Promise<number | null> };

function startGroup(command: string, args: string[], env: Record<string, string>): Group {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: gatewayEnv(env),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

const groups: Group[] = [];
after(() => {
  for (const g of groups) if (g.child.pid && groupAlive(g.child.pid)) process.kill(-g.child.pid, 'SIGKILL');
});

describe('npm start and SIGTERM', { skip: skipNoNpm }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-npm-start-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('SIGTERM sent to the npm process reaches the gateway: graceful stop, no orphan left running', async () => {
    const port = await freePort();
    const group = startGroup('npm', ['start'], {
      PORT: String(port),
      LOG_LEVEL: 'info',
      DATABASE_URL: `sqlite:${join(dir, 'gw.db')}`,
      GATEWAY_SECRET_KEY_FILE: join(dir, 'secret.key'),
    });
    groups.push(group);
    await eventually(async () => /listening on http/.test(group.output()), 30_000, 100);
    process.kill(group.child.pid!, 'SIGTERM'); // only the process the user started, as a supervisor does
    const code = await group.exited;
    await eventually(async () => !groupAlive(group.child.pid!), 15_000, 100).catch(() => {
      throw new Error(`processes of the npm start group still run after SIGTERM:\n${group.output()}`);
    });
    assert.match(group.output(), /"signal":"SIGTERM","msg":"shutting down"/, 'the gateway itself received SIGTERM');
    assert.match(group.output(), /"msg":"gateway stopped"/, 'and stopped gracefully');
    assert.equal(code, 0, `npm start exits 0\n${group.output()}`);
    assert.doesNotMatch(group.output(), /\n\s+at /, 'no stack trace');
  });
});

const postgres = await postgresCase();
const readmeSkip = skipNoNpm || (postgres ? postgres.skip : 'TEST_DATABASE excludes PostgreSQL');

describe("the README's PostgreSQL example, run as written", { skip: readmeSkip }, () => {
  test('one shared key: migrate, two instances and the CLI all work together', async () => {
    const db = await createTestDatabase('postgres');
    try {
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
      const block = /### Running on PostgreSQL\s+```sh\n([\s\S]*?)```/.exec(readme)?.[1];
      assert.ok(block, 'README has a PostgreSQL code block');
      const [portA, portB] = [await freePort(), await freePort()];
      // The only edits: our test database instead of db.internal, and free ports.
      const script = block
        .replace(/postgres:\/\/gateway@db\.internal:5432\/gateway/, db.databaseUrl)
        .replace('PORT=8080', `PORT=${portA}`)
        .replace('PORT=8081', `PORT=${portB}`);
      assert.notEqual(script, block);
      const group = startGroup('bash', ['-c', `${script}\nwait`], { LOG_LEVEL: 'warn', CREATE_DEMO_MERCHANT: 'false' });
      groups.push(group);
      await eventually(
        async () =>
          (group.output().match(/listening on http/g) ?? []).length === 2 && /"merchantid"/.test(group.output()),
        45_000,
        200,
      ).catch(() => {
        throw new Error(`the README example did not bring up two instances and a merchant:\n${group.output()}`);
      });
      assert.doesNotMatch(group.output(), /differs from the key/);
      const creds = JSON.parse(
        group
          .output()
          .split('\n')
          .find((l) => l.startsWith('{"merchantid"'))!,
      );
      for (const port of [portA, portB]) {
        await eventually(
          async () => {
            const paid = await httpPost(`http://127.0.0.1:${port}/transaction/s2s`, {
              ...JSON.parse(fixture('string-amount.json', creds)),
              trackid: `readme-${port}`,
            });
            return paid.status === 200 && paid.body.responsecode === '9';
          },
          10_000,
          200,
        );
      }
      process.kill(-group.child.pid!, 'SIGTERM');
      await eventually(async () => !groupAlive(group.child.pid!), 15_000, 100);
      assert.doesNotMatch(group.output(), /\n\s+at /, 'no stack trace from any of them');
    } finally {
      await db.drop();
    }
  });
});
