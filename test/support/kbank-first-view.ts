// A child process that does what the hosted page's first view of a live payment does: the
// production services (compose/start-services.ts, configured from the environment like `serve`)
// asked for the payment's KBank QR (HostedPage.processorQrFor → PaymentQr.ensure). The page route
// does not call it yet (src/http/api/redirect-page.ts), so the crash tests
// (test/e2e/kbank-crash.test.ts) run this instead, and kill it while KBank holds the create.
// Usage: node test/support/kbank-first-view.ts <redirect id>; prints {"reference","payload"} or
// {"paid":true} when the payment turned out paid, exit 1 with the error otherwise.
import { loadConfig, readEnvironment } from '../../src/config.ts';
import { openServices } from '../../src/compose/start-services.ts';
import { createLogger } from '../../src/logger.ts';

const redirectId = process.argv[2];
if (!redirectId) throw new Error('usage: kbank-first-view.ts <redirect id>');
const config = loadConfig(readEnvironment(process.env, '/nonexistent/.env'));
const services = await openServices(config, { logger: createLogger('warn', process.stderr) });
try {
  const t = await services.transactions.findByRedirectId(redirectId);
  if (!t) throw new Error(`no payment behind ${redirectId}`);
  const shown = await services.processor.paymentQr.ensure(t);
  const latest = await services.store.processorAttempts.latest(t.id, 'qr');
  process.stdout.write(
    JSON.stringify(shown ? { reference: latest?.reference, payload: shown.payload } : { paid: true }) + '\n',
  );
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await services.store.close();
}
