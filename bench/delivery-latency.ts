// Notification latency: from the moment a payment reaches its final state (completed_at, as
// stored) to the moment a local receiver has the notification, over ~1,000 payments.
//
//   node_modules/.bin/node bench/delivery-latency.ts [--store sqlite|postgres] [--payments 1000] [--rate 50]
//     [--concurrency 8]
//
// One in-process gateway (HTTP API + delivery worker, production configuration apart from the
// port and store) and a receiver on 127.0.0.1 that answers 200 at once. Payments are started at
// `--rate` per second (open loop, at most `--concurrency` at a time) through the HTTP API
// (initiate, then sandbox complete). `--rate 0` is a closed loop as fast as the clients can go:
// then the figure is mostly queueing behind a saturated process (clients, API, worker and
// receiver share one event loop and the machine's 2 cores), not the worker's own delay.
// PostgreSQL uses a fresh database on 127.0.0.1:5432 (BENCH_PG_ADMIN_URL to override), dropped after.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createLogger } from '../src/logger.ts';
import { startGateway } from '../src/server.ts';
import { deliveryWorker } from '../src/delivery/delivery-worker.ts';
import { benchDatabase, benchGatewayConfig } from './postgres-database.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    payments: { type: 'string', default: '1000' },
    rate: { type: 'string', default: '50' },
    concurrency: { type: 'string', default: '8' },
  },
});
const store = values.store === 'postgres' ? 'postgres' : 'sqlite';
const payments = Math.max(10, Math.min(100_000, Number(values.payments)));
const concurrency = Math.max(1, Math.min(256, Number(values.concurrency)));
const rate = Math.max(0, Math.min(10_000, Number(values.rate)));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const received = new Map<string, number>();
let allReceived: () => void = () => {};
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    const tx = JSON.parse(Buffer.concat(chunks).toString('utf8')).transactionid as string;
    if (!received.has(tx)) received.set(tx, at);
    res.writeHead(200).end('ok');
    if (received.size >= payments) allReceived();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const serverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const db = await benchDatabase(store);
const config = benchGatewayConfig(db.url, { DELIVERY_PER_HOST_CONCURRENCY: process.env.DELIVERY_PER_HOST_CONCURRENCY });
const gateway = await startGateway(config, { logger: createLogger('warn'), workers: [deliveryWorker] });
try {
  const creds = await gateway.services.manageMerchants.create({
    name: 'Bench Shop',
    payoutCurrency: 'THB',
    payoutAccount: '1234567890',
  });
  await gateway.services.directory.refresh();

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, any>;
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const transactions: string[] = [];
  let next = 0;
  const started = Date.now();
  const done = new Promise<void>((resolve) => (allReceived = resolve));
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < payments) {
        const i = next++;
        if (rate > 0) {
          const due = started + (i * 1000) / rate;
          if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
        }
        const init = await post('/transaction/s2s', {
          merchantid: creds.merchantid,
          password: creds.password,
          payment_method: { type: 'THAI_DEBIT' },
          trackid: `bench-${i}`,
          bill_currencycode: 'THB',
          bill_amount: '1000.00',
          bill_country: 'TH',
          bill_customerip: '127.0.0.1',
          bill_email: 'payer@example.com',
          returnUrl: 'https://shop.example.com/return',
          serverUrl,
          payer_account_no: '1234567890',
          payer_account_name: 'Bench Payer',
          payer_bank_code: '014',
        });
        await post('/sandbox/transaction/complete', {
          merchantid: creds.merchantid,
          password: creds.password,
          transactionid: init.transactionid,
        });
        transactions.push(init.transactionid as string);
      }
    }),
  );
  const timeout = setTimeout(() => allReceived(), 120_000);
  await done;
  clearTimeout(timeout);
  const wall = Date.now() - started;

  const latencies: number[] = [];
  for (const id of transactions) {
    const tx = await gateway.services.transactions.findById(creds.merchantid, id);
    const at = received.get(id);
    if (tx?.completedAt != null && at !== undefined) latencies.push(at - tx.completedAt);
  }
  latencies.sort((a, b) => a - b);
  const lost = transactions.length - latencies.length;
  const mean = latencies.reduce((a, b) => a + b, 0) / latencies.length;
  const result = {
    store,
    payments: transactions.length,
    concurrency,
    offered_rate: rate,
    delivered: latencies.length,
    not_delivered: lost,
    p50_ms: percentile(latencies, 50),
    p90_ms: percentile(latencies, 90),
    p99_ms: percentile(latencies, 99),
    max_ms: latencies.at(-1),
    mean_ms: Math.round(mean * 10) / 10,
    payments_per_s: Math.round((transactions.length / wall) * 1000),
  };
  console.log(
    `Notification latency, completed_at → receipt (${store}, ` +
      `${result.payments} payments, offered ${rate > 0 ? `${rate}/s` : 'closed loop'}, ` +
      `${concurrency} clients, achieved ${result.payments_per_s} payments/s):`,
  );
  console.log(
    `  p50 ${result.p50_ms} ms   p90 ${result.p90_ms} ms   p99 ${result.p99_ms} ms ` +
      `  max ${result.max_ms} ms   mean ${result.mean_ms} ms   not delivered ${lost}`,
  );
  console.log(JSON.stringify(result));
  if (lost > 0) process.exitCode = 1;
} finally {
  await gateway.stop();
  receiver.close();
  await db.drop();
}
