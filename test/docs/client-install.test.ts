// The client libraries are not on a package registry, so an install command that names the registry
// fails for whoever follows it. The READMEs show the install that works (packages/client/README.md:
// `npm pack ./packages/client` in the gateway's checkout, then `npm install` of the tarball), keep
// the registry command only for when the package is published, and the documented commands are run
// here as written, from the repository's root, into a fresh project that then imports the client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
const READMES = ['README.md', 'packages/client/README.md', 'packages/php/README.md'];

test('no README tells anyone to install a client from a registry, except as what works once it is published', () => {
  for (const file of READMES) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const line of text.split('\n')) {
      if (!/(npm (install|i|add)|yarn add|pnpm add) @thaiqr-gateway\/client|composer require/.test(line)) continue;
      assert.match(line, /when the package is published/i, `${file}: ${line}`);
    }
  }
  const client = readFileSync(join(root, 'packages/client/README.md'), 'utf8');
  assert.match(client, /^npm pack \.\/packages\/client$/m);
  assert.match(client, /^npm install \/path\/to\/gateway\/thaiqr-gateway-client-[\d.]+\.tgz$/m);
});

test('the documented install works: npm pack ./packages/client, npm install of the tarball, import', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-client-install-'));
  try {
    // The README's command, with the tarball written to the temp folder instead of the checkout.
    const packed = JSON.parse(
      execFileSync('npm', ['pack', './packages/client', '--json', '--pack-destination', dir], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ) as { filename: string }[];
    const client = readFileSync(join(root, 'packages/client/README.md'), 'utf8');
    assert.ok(client.includes(`/path/to/gateway/${packed[0]!.filename}`), 'the README names the tarball npm writes');
    const app = join(dir, 'app');
    execFileSync('mkdir', [app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'shop', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', join(dir, packed[0]!.filename)], {
      cwd: app,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const imported = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const c = await import('@thaiqr-gateway/client');" +
          'console.log(typeof c.GatewayClient, typeof c.verifyNotification)',
      ],
      { cwd: app, encoding: 'utf8' },
    );
    assert.equal(imported.trim(), 'function function');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
