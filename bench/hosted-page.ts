// Hosted page GET (issue 14): the gateway's payment page for one PROCESSING transaction,
// requested over and over as a customer's reloads and many customers' views would, against a
// bare node:http server answering GETs with a fixed HTML document of the same size, in the same
// run. Both are child processes; autocannon runs here.
//
//   node_modules/.bin/node bench/hosted-page.ts [--duration 5] [--connections 32]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createHistogram } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { killAllChildren, runNode, startServer, type ServerChild } from './children.ts';
import { processCpuSeconds } from './cpu-usage.ts';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '5' }, connections: { type: 'string', default: '32' } } });
const durationS = Math.max(1, Math.min(60, Number(values.duration)));
const connections = Math.max(1, Math.min(512, Number(values.connections)));

async function measure(server: ServerChild, path: string): Promise<{ rps: number; usPerRequest: number; p99Ms: number; non2xx: number }> {
  const pid = server.process.pid!;
  const run = (seconds: number) =>
    new Promise<autocannon.Result>((resolve, reject) => {
      const latency = createHistogram();
      const instance = autocannon({ url: server.url, connections, duration: seconds, requests: [{ method: 'GET', path }] }, (error, done) => (error ? reject(error) : resolve(done)));
      instance.on('response', (_c, _s, _b, ms) => latency.record(Math.max(1, Math.round(ms * 1000))));
    });
  await run(1); // warm-up
  const before = processCpuSeconds(pid) ?? 0;
  const result = await run(durationS);
  const cpu = (processCpuSeconds(pid) ?? 0) - before;
  const requests = result.requests.total;
  return { rps: requests / result.duration, usPerRequest: (cpu * 1e6) / Math.max(1, requests), p99Ms: result.latency.p99, non2xx: result.non2xx };
}

const dir = mkdtempSync(join(tmpdir(), 'gw-bench-page-'));
try {
  console.log(`Hosted page GET: ${connections} connections, ${durationS} s each, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const env = { DATABASE_URL: `sqlite:${join(dir, 'g.db')}`, GATEWAY_SECRET_KEY: randomBytes(32).toString('hex'), CREATE_DEMO_MERCHANT: 'false', LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: '0' };
  const creds = JSON.parse(await runNode(['src/cli/index.ts', 'merchant', 'create', '--name', 'Bench Shop', '--payout-currency', 'THB', '--payout-account', '1234567890', '--json'], env));

  const bare = await startServer(['bench/baseline-html-server.ts'], {}, /listening (http:\/\/127\.0\.0\.1:\d+)/);
  const bareResult = await measure(bare, '/');
  await bare.stop();

  const gateway = await startServer(['src/cli/index.ts', 'serve'], env, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  const answer = await fetch(`${gateway.url}/transaction/s2s`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      merchantid: creds.merchantid, password: creds.password, payment_method: { type: 'THAI_DEBIT' }, trackid: 'page-bench', bill_currencycode: 'THB',
      bill_amount: '1000.00', bill_country: 'TH', bill_customerip: '127.0.0.1', bill_email: 'payer@example.com', returnUrl: 'https://shop.example/return',
      serverUrl: 'http://127.0.0.1:9/hook', payer_account_no: '1234569012', payer_account_name: 'Bench Payer', payer_bank_code: 'SCB',
    }),
  }).then((r) => r.json() as Promise<{ redirectUrl: string }>);
  const path = new URL(answer.redirectUrl).pathname + new URL(answer.redirectUrl).search;
  const page = await measure(gateway, path);
  await gateway.stop();

  const row = (label: string, r: { rps: number; usPerRequest: number; p99Ms: number; non2xx: number }, ratio?: string) =>
    console.log(`  ${label.padEnd(34)} ${r.rps.toFixed(0).padStart(7)} req/s  p99 ${String(r.p99Ms).padStart(4)} ms  ${r.usPerRequest.toFixed(0).padStart(5)} µs CPU/request  non-2xx ${r.non2xx}${ratio ? `  ${ratio}` : ''}`);
  row('bare node:http, static HTML', bareResult);
  row('gateway hosted page (GET)', page, `${(page.rps / bareResult.rps).toFixed(2)}× bare, CPU ${(page.usPerRequest / bareResult.usPerRequest).toFixed(1)}× bare`);
} finally {
  killAllChildren();
  rmSync(dir, { recursive: true, force: true });
}
