// What the bank crash tests (test/e2e/kbank-crash.test.ts, test/e2e/scb-crash.test.ts) share: a
// live `serve` run as a child process and killed with SIGKILL while the bank holds its answer,
// and what they read back: the merchant's API and the customer's hosted page on the running
// process, the payment's attempts and rows straight from the store, and a wait for the restarted
// gateway to converge. What the bank is asked and what it must end up holding stay in each test.
import assert from 'node:assert/strict';
import { renderQrSvg } from '../../src/http/hosted-page/qr-svg.ts';
import type { StoreEngine } from '../../src/store/engine.ts';
import type { Creds } from './delivery-process.ts';
import { startGatewayProcess, type GatewayProcess } from './gateway-process.ts';
import { initiationBody } from './test-gateway.ts';

/** The reconciler's first check of an attempt comes 15 s after it was written (check-schedule.ts). */
const CONVERGE_MS = 45_000;

export type AttemptRow = {
  reference: string;
  kind: string;
  attempt: number;
  state: string;
  qr_payload: string | null;
};

export class CrashHarness {
  /** The running `serve`, if any. */
  gateway: GatewayProcess | undefined;
  readonly #env: Record<string, string>;
  readonly #engine: StoreEngine;
  readonly #creds: Creds;
  readonly #trackPrefix: string;
  #trackid = 0;

  /** `trackPrefix` names the bank in each payment's trackid ("kbank-crash"). */
  constructor(env: Record<string, string>, engine: StoreEngine, creds: Creds, trackPrefix: string) {
    this.#env = env;
    this.#engine = engine;
    this.#creds = creds;
    this.#trackPrefix = trackPrefix;
  }

  /** Starts `serve` (again): resolves with the process, also kept as `gateway`. */
  async start(): Promise<GatewayProcess> {
    this.gateway = await startGatewayProcess(this.#env);
    return this.gateway;
  }

  /** Kills the running `serve` with SIGKILL, if one runs (afterEach). */
  async kill(): Promise<void> {
    await this.gateway?.stop('SIGKILL');
    this.gateway = undefined;
  }

  #running(): GatewayProcess {
    assert.ok(this.gateway, 'a gateway is running');
    return this.gateway;
  }

  /** A merchant API call (POST JSON) on the running `serve`. */
  async api(path: string, body: unknown): Promise<{ status: number; body: Record<string, any> }> {
    const res = await fetch(`${this.#running().url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  /** A payment initiated through POST /transaction/s2s: its id and its hosted page's redirect ID. */
  async initiate(amount = '1000.00'): Promise<{ transactionid: string; redirectId: string }> {
    const res = await this.api(
      '/transaction/s2s',
      initiationBody(this.#creds, {
        trackid: `${this.#trackPrefix}-${process.pid}-${++this.#trackid}`,
        bill_amount: amount,
        serverUrl: 'https://merchant.example/notify',
      }),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const page = new URL(res.body.redirectUrl as string);
    assert.equal(`${page.origin}${page.pathname}`, 'https://pay.example/transaction/Redirect');
    const redirectId = page.searchParams.get('ID')!;
    return { transactionid: res.body.transactionid as string, redirectId };
  }

  /** The payment's attempts at the bank, by kind, oldest first. */
  attempts(transactionId: string): Promise<AttemptRow[]> {
    return this.#engine.db
      .selectFrom('processor_attempts')
      .select(['reference', 'kind', 'attempt', 'state', 'qr_payload'])
      .where('transaction_id', '=', transactionId)
      .orderBy('kind')
      .orderBy('attempt')
      .execute();
  }

  /** The payment's status and how many rows it has of each kind that must never be doubled. */
  async payment(transactionId: string) {
    const db = this.#engine.db;
    const row = await db
      .selectFrom('transactions')
      .select(['status', 'refunded_minor'])
      .where('id', '=', transactionId)
      .executeTakeFirstOrThrow();
    const count = async (table: 'transaction_transitions' | 'outbox_events' | 'refunds') =>
      (await db.selectFrom(table).select('transaction_id').where('transaction_id', '=', transactionId).execute())
        .length;
    return {
      status: row.status,
      refundedMinor: BigInt(row.refunded_minor),
      transitions: await count('transaction_transitions'),
      notifications: await count('outbox_events'),
      refunds: await count('refunds'),
      paymentEntries: (
        await db.selectFrom('journal_entries').select('id').where('transaction_id', '=', transactionId).execute()
      ).length,
    };
  }

  /** Reads until `done` holds, for as long as the reconciler may take to converge. */
  async until<T>(what: string, read: () => Promise<T> | T, done: (v: T) => boolean): Promise<T> {
    const deadline = Date.now() + CONVERGE_MS;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * The restarted gateway settles the held QR the customer paid meanwhile: the payment ends
   * SUCCESS once (one transition, one notification, one ledger entry), its one attempt paid.
   */
  async settledPaidOnce(transactionId: string): Promise<void> {
    const done = await this.until(
      'the restarted gateway completing the payment',
      () => this.payment(transactionId),
      (s) => s.status === 'SUCCESS',
    );
    assert.deepEqual([done.transitions, done.notifications, done.paymentEntries], [1, 1, 1]);
    // The attempt is marked paid just after the payment's commit (the reconciler releases it then).
    const marked = await this.until(
      'the attempt marked paid',
      async () => (await this.attempts(transactionId)).map((a) => [a.attempt, a.state]),
      (rows) => rows.length === 1 && rows[0]![1] === 'paid',
    );
    assert.deepEqual(marked, [[1, 'paid']]);
  }

  /** The customer's browser: GET of the hosted page on the running `serve` (English). */
  async view(redirectId: string): Promise<{ status: number; body: string }> {
    const res = await fetch(`${this.#running().url}/transaction/Redirect?ID=${encodeURIComponent(redirectId)}&lang=en`);
    return { status: res.status, body: await res.text() };
  }

  /**
   * The page shows the one payable QR, verbatim: resolves with its attempt. `payable` says which
   * attempts the customer can pay (`what` in the assertion's message).
   */
  async shownQr(
    transactionId: string,
    redirectId: string,
    payable: (attempt: AttemptRow) => boolean,
    what: string,
  ): Promise<{ reference: string; attempt: number; payload: string }> {
    const page = await this.view(redirectId);
    assert.equal(page.status, 200, page.body);
    const payables = (await this.attempts(transactionId)).filter(payable);
    assert.equal(payables.length, 1, `exactly one QR ${what}`);
    const [qr] = payables;
    const payload = qr!.qr_payload;
    assert.ok(payload, 'the payable QR has its payload');
    assert.equal(svgOf(page.body), (await renderQrSvg(payload)).replace(/ aria-label="[^"]*"/, ''), 'the QR shown');
    assert.match(page.body, /id="cancel"/);
    return { reference: qr!.reference, attempt: qr!.attempt, payload };
  }

  /** The page shows the payment's success, and no QR. */
  async shownPaid(redirectId: string): Promise<void> {
    const page = await this.view(redirectId);
    assert.equal(page.status, 200, page.body);
    assert.match(page.body, /Payment successful/);
    assert.doesNotMatch(page.body, /id="cancel"|data-remaining-ms/);
  }

  /**
   * The first view of the page while the bank holds the create's answer (the test queued that
   * fault): `serve` is killed once `creates()` counts the create at the bank, and the customer's
   * browser loses the connection, no page at all.
   */
  async crashDuringFirstView(redirectId: string, bank: string, creates: () => number): Promise<void> {
    const before = creates();
    const firstView = this.view(redirectId);
    firstView.catch(() => undefined);
    await this.until(`the create reaching ${bank}`, creates, (n) => n === before + 1);
    const gateway = this.#running();
    assert.equal(await gateway.stop('SIGKILL'), null);
    assert.equal((await gateway.exited).signal, 'SIGKILL');
    this.gateway = undefined;
    await assert.rejects(firstView, (error: Error & { cause?: { code?: string } }) => {
      assert.equal(error.name, 'TypeError', String(error));
      assert.ok(['UND_ERR_SOCKET', 'ECONNRESET'].includes(String(error.cause?.code)), String(error.cause));
      return true;
    });
  }
}

function svgOf(body: string): string | undefined {
  return /<svg[\s\S]*?<\/svg>/.exec(body)?.[0]?.replace(/ aria-label="[^"]*"/, '');
}
