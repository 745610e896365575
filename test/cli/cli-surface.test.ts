// The CLI serves scripts and people (README.md "Operator CLI"). Help on stdout for every command,
// usage errors on stderr with exit 2, one JSON document per --json command even through npm, header
// rows on tables, and no stack trace when the reader of stdout goes away (`… | head`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/run-cli.ts';
import { commandTable } from '../../src/cli/commands/index.ts';
import { createTestDatabase } from '../support/test-store.ts';
import { TEST_SECRET_KEY_HEX } from '../support/test-gateway.ts';
import { gatewayEnv, runCliProcess } from '../support/gateway-process.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
type Run = { code: number; out: string; err: string };

async function cli(argv: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) }, env);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('CLI help and usage', () => {
  for (const name of Object.keys(commandTable)) {
    test(`${name} --help prints the command's usage on stdout and exits 0 without touching a store`, async () => {
      // An unusable DATABASE_URL proves help needs neither configuration nor a store.
      const run = await cli([...name.split(' '), '--help'], { DATABASE_URL: 'mysql://nowhere' });
      assert.equal(run.code, 0, run.err);
      assert.equal(run.err, '');
      assert.match(run.out, new RegExp(`^Usage: npm run -s gateway -- ${name}\\b`));
      assert.ok(run.out.includes(commandTable[name]!.summary));
    });
  }

  for (const asked of [['help'], ['--help'], ['-h']]) {
    test(`${asked[0]} lists every command on stdout, exit 0`, async () => {
      const run = await cli(asked);
      assert.equal(run.code, 0);
      assert.equal(run.err, '');
      for (const name of Object.keys(commandTable)) assert.ok(run.out.includes(`  ${name} `), `${name} is listed`);
    });
  }

  test('no command, an unknown command or a bad flag: stderr and exit 2', async () => {
    const none = await cli([]);
    assert.equal(none.code, 2);
    assert.equal(none.out, '');
    const unknown = await cli(['merchant', 'explode']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /Unknown command 'merchant explode'/);
    const badFlag = await cli(['merchant', 'list', '--colour'], {
      DATABASE_URL: 'sqlite::memory:',
      GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX,
    });
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.err, /Unknown option '--colour'/);
    assert.match(
      badFlag.err,
      /Usage: npm run -s gateway -- merchant list \[--json\]/,
      "the command's own usage follows",
    );
  });
});

describe('CLI output for scripts and people', () => {
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  before(async () => {
    const db = await createTestDatabase('sqlite');
    drop = db.drop;
    env = { DATABASE_URL: db.databaseUrl, GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX };
    const created = await cli(
      [
        'merchant',
        'create',
        '--name',
        'Pipe Shop',
        '--payout-currency',
        'THB',
        '--payout-account',
        '1234567890',
        '--id',
        'pipe-shop',
        '--json',
      ],
      env,
    );
    assert.equal(created.code, 0, created.err);
  });
  after(() => drop?.());

  test('merchant list: a header row for people, one JSON object for scripts', async () => {
    const human = await cli(['merchant', 'list'], env);
    assert.deepEqual(human.out.split('\n')[0]!.split('\t'), [
      'MERCHANTID',
      'STATUS',
      'PAYOUT',
      'ACCOUNT',
      'NAME',
      'PAYER_MISMATCH',
    ]);
    assert.match(human.out.split('\n')[1]!, /^pipe-shop\tactive\tTHB\t••••7890\tPipe Shop\trecord$/);
    const json = await cli(['merchant', 'list', '--json'], env);
    assert.deepEqual(Object.keys(JSON.parse(json.out)), ['merchants']);
  });

  test('merchant disable/enable --json print one object each', async () => {
    assert.deepEqual(JSON.parse((await cli(['merchant', 'disable', 'pipe-shop', '--json'], env)).out), {
      merchantid: 'pipe-shop',
      status: 'disabled',
    });
    assert.deepEqual(JSON.parse((await cli(['merchant', 'enable', 'pipe-shop', '--json'], env)).out), {
      merchantid: 'pipe-shop',
      status: 'active',
    });
  });

  test('a closed stdout (`… | head`) ends the command quietly: exit 0, no stack trace', async () => {
    const child = spawn(process.execPath, ['src/cli/index.ts', 'ledger', 'show', '--merchant', 'pipe-shop'], {
      cwd: ROOT,
      env: gatewayEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy(); // the reader is gone before the first line is written
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.doesNotMatch(stderr, /EPIPE|\n\s+at /, stderr);
    assert.equal(code, 0);
  });

  const hasNpm = spawnSync('npm', ['--version'], { stdio: 'ignore' }).status === 0;
  test(
    '`npm run -s gateway -- … --json` prints only the JSON document on stdout',
    { skip: hasNpm ? false : 'npm is not on PATH' },
    async () => {
      const result = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn('npm', ['run', '-s', 'gateway', '--', 'merchant', 'list', '--json'], {
          cwd: ROOT,
          env: gatewayEnv(env),
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        let stdout = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
        child.once('exit', (code) => resolve({ code, stdout }));
      });
      assert.equal(result.code, 0);
      assert.equal(
        JSON.parse(result.stdout).merchants[0].merchantid,
        'pipe-shop',
        `stdout is one JSON document: ${result.stdout}`,
      );
    },
  );

  test('the CLI process itself: help on stdout, exit 0', async () => {
    const run = await runCliProcess(['delivery', 'list', '--help'], env);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^Usage: npm run -s gateway -- delivery list/);
  });
});
