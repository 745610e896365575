// The files an operator deploys from (docs/deployment.md "Containers"). This machine has no
// container runtime that can pull a base image, so the image is not built here; instead the
// Dockerfile is linted (dockerfile-utils, the VS Code Docker validator), its health check command
// is run against a real gateway, compose.yaml is validated by docker-compose itself, and
// .env.example and the README are checked against the settings config.ts actually reads.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validate } from 'dockerfile-utils';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../src/config.ts';
import { freePort, killLeftoverGateways, startGatewayProcess } from '../support/gateway-process.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const dockerfile = read('Dockerfile');

/** Every environment key loadConfig reads, found by giving it an environment that records lookups. */
function settingsRead(): string[] {
  const seen = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, key) {
      if (typeof key === 'string') seen.add(key);
      return undefined;
    },
  });
  loadConfig(env);
  loadConfig(
    new Proxy(
      { GATEWAY_MODE: 'live', GATEWAY_SECRET_KEY: 'ab'.repeat(32), PUBLIC_BASE_URL: 'https://pay.example' } as Record<
        string,
        string | undefined
      >,
      {
        get(target, key) {
          if (typeof key === 'string') seen.add(key);
          return typeof key === 'string' ? target[key] : undefined;
        },
      },
    ),
  );
  return [...seen].sort();
}

describe('Dockerfile', () => {
  after(() => killLeftoverGateways());

  test('passes the Dockerfile validator with no problem', () => {
    assert.deepEqual(
      validate(dockerfile).map((d) => `line ${d.range.start.line + 1}: ${d.message}`),
      [],
    );
  });

  test('Node 24, production dependencies only, non-root, node src/main.ts as the process that gets SIGTERM', () => {
    const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    assert.ok(
      froms.length > 0 && froms.every((f) => /^node:24(-|$)/.test(f!)),
      `every stage is on Node 24: ${froms.join(', ')}`,
    );
    assert.match(dockerfile, /npm ci --omit=dev/);
    assert.match(dockerfile, /^USER node$/m, 'runs as the unprivileged node user');
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    assert.ok(cmd, 'CMD in exec form (no shell between the runtime and Node)');
    assert.deepEqual(JSON.parse(cmd), ['node', 'src/main.ts']);
    assert.ok(existsSync(join(ROOT, 'src/main.ts')));
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['node_modules', '.env', 'data', '.git'])
      assert.ok(ignored.includes(entry), `.dockerignore keeps ${entry} out of the image`);
  });

  test('the HEALTHCHECK command passes against a running gateway and fails when nothing answers', async () => {
    const healthcheck = /^HEALTHCHECK [^\n]*\\\n\s+CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    assert.ok(healthcheck, 'HEALTHCHECK with an exec-form command');
    const [bin, ...args] = JSON.parse(healthcheck) as string[];
    assert.equal(bin, 'node');
    const dir = mkdtempSync(join(tmpdir(), 'gw-health-'));
    try {
      const gateway = await startGatewayProcess({
        DATABASE_URL: `sqlite:${join(dir, 'gw.db')}`,
        GATEWAY_SECRET_KEY_FILE: join(dir, 'key'),
      });
      const port = new URL(gateway.url).port;
      assert.equal(
        spawnSync(process.execPath, args, { env: { PORT: port }, timeout: 10_000 }).status,
        0,
        'healthy while ready',
      );
      await gateway.stop();
      assert.equal(
        spawnSync(process.execPath, args, { env: { PORT: port }, timeout: 10_000 }).status,
        1,
        'unhealthy when it does not answer',
      );
      const unused = await freePort();
      assert.equal(spawnSync(process.execPath, args, { env: { PORT: String(unused) }, timeout: 10_000 }).status, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const hasCompose = spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0;
if (!hasCompose && process.env.CI === 'true')
  throw new Error("CI=true but docker-compose is not installed (.ci/run installs Debian's docker-compose)");

describe('compose.yaml', () => {
  const compose = parseYaml(read('compose.yaml'), { merge: true }) as { services: Record<string, any> };

  test('two gateway instances on one PostgreSQL, one shared secret key that must be set', () => {
    const gateways = Object.entries(compose.services).filter(([name]) => name.startsWith('gateway'));
    assert.equal(gateways.length, 2);
    for (const [, service] of gateways) {
      assert.match(
        service.environment.GATEWAY_SECRET_KEY,
        /^\$\{GATEWAY_SECRET_KEY:\?/,
        'the key comes from .env and is required',
      );
      assert.match(service.environment.DATABASE_URL, /@postgres:5432\//);
      assert.equal(service.depends_on.postgres.condition, 'service_healthy');
    }
    assert.ok(compose.services.postgres?.healthcheck);
  });

  test(
    'docker-compose accepts the file with a .env, and refuses to run without the key',
    { skip: hasCompose ? false : 'docker-compose is not installed (apt-get install docker-compose)' },
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'gw-compose-'));
      try {
        for (const file of ['compose.yaml', 'Dockerfile']) copyFileSync(join(ROOT, file), join(dir, file));
        writeFileSync(join(dir, '.env'), `GATEWAY_SECRET_KEY=${'d4'.repeat(32)}\nPOSTGRES_PASSWORD=secret\n`);
        const ok = spawnSync('docker-compose', ['-f', 'compose.yaml', 'config'], { cwd: dir, encoding: 'utf8' });
        assert.equal(ok.status, 0, ok.stderr);
        assert.equal((ok.stdout.match(/GATEWAY_SECRET_KEY: d4d4/g) ?? []).length, 2, 'both instances get the same key');
        writeFileSync(join(dir, '.env'), 'POSTGRES_PASSWORD=secret\n');
        const missing = spawnSync('docker-compose', ['-f', 'compose.yaml', 'config'], { cwd: dir, encoding: 'utf8' });
        assert.notEqual(missing.status, 0);
        assert.match(missing.stderr, /set GATEWAY_SECRET_KEY in \.env/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('settings documentation', () => {
  const keys = settingsRead();

  test('config.ts reads a known set of settings (sanity check of the recorder)', () => {
    for (const key of ['PORT', 'DATABASE_URL', 'GATEWAY_SECRET_KEY', 'RETRY_LADDER'])
      assert.ok(keys.includes(key), key);
  });

  test('.env.example lists every setting', () => {
    const example = read('.env.example');
    const missing = keys.filter((key) => !new RegExp(`^#? ?${key}=`, 'm').test(example));
    assert.deepEqual(missing, [], 'settings missing from .env.example');
  });

  test("the README's configuration table lists every setting", () => {
    const readme = read('README.md');
    const missing = keys.filter((key) => !readme.includes(`\`${key}\``));
    assert.deepEqual(missing, [], 'settings missing from the README');
  });
});
