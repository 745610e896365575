// Balances and ledger postings, with CSV export. A merchant sees its own accounts; an operator
// picks a merchant. Postings are paged on the account's own chain (account_seq, unique index),
// newest first; the CSV has every posting of the account, oldest first, read in batches.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LedgerOperations } from '../../../app/ledger-operations.ts';
import { GatewayError } from '../../../domain/errors.ts';
import type { ActiveSession } from '../../../app/console/console-sessions.ts';
import { html, raw } from '../../hosted-page/html.ts';
import { formatTime, languageOf, remoteOrigin, scopeOf, sendPage, sessionOf, type ConsoleKit } from '../console-kit.ts';
import { csvRow } from '../csv.ts';
import { CONSOLE_TEXTS } from '../texts.ts';
import { ledgerAmount, ledgerDecimal } from './ledger-format.ts';

const PAGE_SIZE = 50;
const CSV_BATCH = 1000;
const MERCHANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

type Query = Record<string, unknown>;

export function registerBalanceRoutes(scope: FastifyInstance, kit: ConsoleKit): void {
  const { services, console: c } = kit;
  const ledgerOps = new LedgerOperations({
    store: services.store,
    ledger: services.ledger,
    merchants: services.merchants,
    now: services.now,
  });
  const repo = services.store.consoleReads;

  /** The merchant whose ledger is shown: the session's own, or the operator's choice (undefined: none chosen yet). */
  function merchantFor(session: ActiveSession, query: Query): string | undefined {
    const own = scopeOf(session);
    if (own !== undefined) return own;
    return typeof query.merchant === 'string' && MERCHANT_ID.test(query.merchant) ? query.merchant : undefined;
  }

  async function ledgerOf(merchantId: string, query: Query) {
    const shown = await ledgerOps.show(merchantId, { limit: 1 }).catch((error: unknown) => {
      if (error instanceof GatewayError && error.tag === 'NOT_FOUND') return undefined;
      throw error;
    });
    if (!shown) throw new GatewayError('NOT_FOUND', 'No such merchant.');
    const account = shown.accounts.find((a) => a.id === query.account) ?? shown.accounts[0]!;
    return { shown, account };
  }

  scope.get('/balances', async (request: FastifyRequest<{ Querystring: Query }>, reply) => {
    const lang = languageOf(request, reply, kit);
    const t = CONSOLE_TEXTS[lang];
    const b = t.balances;
    const session = sessionOf(request);
    const merchantId = merchantFor(session, request.query);
    const picker =
      session.subject.role === 'operator'
        ? await (async () => {
            const merchants = await services.manageMerchants.list();
            return html`<div class="card"><form method="get" action="${kit.root}/balances" class="actions">
              <div><label for="merchant">${b.chooseMerchant}</label><select id="merchant" name="merchant">${merchants.map((m) => html`<option value="${m.id}"${raw(m.id === merchantId ? ' selected' : '')}>${m.id} — ${m.name}</option>`)}</select></div>
              <button type="submit">${b.show}</button></form></div>`;
          })()
        : null;
    if (merchantId === undefined)
      return sendPage(kit, request, reply, {
        lang,
        title: b.heading,
        body: html`<h1>${b.heading}</h1>${picker}`,
        session,
        nav: 'balances',
      });

    const { shown, account } = await ledgerOf(merchantId, request.query);
    const beforeSeq =
      typeof request.query.before === 'string' && /^\d{1,18}$/.test(request.query.before)
        ? BigInt(request.query.before)
        : undefined;
    const rows = await repo.postings(account.id, {
      limit: PAGE_SIZE + 1,
      ...(beforeSeq !== undefined && { beforeSeq }),
    });
    const postings = rows.slice(0, PAGE_SIZE);
    const base = new URLSearchParams({
      ...(session.subject.role === 'operator' && { merchant: merchantId }),
      account: account.id,
    });
    const next =
      rows.length > PAGE_SIZE
        ? `${kit.root}/balances?${base.toString()}&before=${postings.at(-1)!.accountSeq}`
        : undefined;
    const body = html`<h1>${b.heading}</h1>${picker}
      <div class="card scroll"><h2>${shown.merchant.name} <span class="mono">${shown.merchant.id}</span></h2>
        <table><thead><tr><th>${t.detail.account}</th><th class="num">${b.balance}</th><th class="num">${b.postings}</th></tr></thead><tbody>
          ${shown.accounts.map(
            (a) =>
              html`<tr><td class="mono"><a href="${kit.root}/balances?${new URLSearchParams({ ...(session.subject.role === 'operator' && { merchant: merchantId }), account: a.id }).toString()}"${raw(a.id === account.id ? ' aria-current="true"' : '')}>${a.id}</a>${a.isPayoutAccount ? html` <span class="pill s-active">${b.payoutAccount}</span>` : null}</td><td class="num">${ledgerAmount(a.balanceMinor, a.currency)}</td><td class="num">${a.postingCount.toString()}</td></tr>`,
          )}
        </tbody></table></div>
      <div class="card scroll"><h2>${b.postings} <span class="mono">${account.id}</span></h2>
        <p><a class="button secondary" href="${kit.root}/balances/postings.csv?${base.toString()}" download>${b.exportCsv}</a></p>
        ${
          postings.length === 0
            ? html`<p class="muted">${b.noPostings}</p>`
            : html`<table><thead><tr><th class="num">#</th><th>${t.payments.created}</th><th>${b.kind}</th><th>${b.reasonCol}</th><th class="num">${t.payments.amount}</th><th class="num">${t.detail.balanceAfter}</th><th>${b.payment}</th></tr></thead><tbody>
              ${postings.map(
                (p) =>
                  html`<tr><td class="num">${p.accountSeq.toString()}</td><td>${formatTime(p.createdAt)}</td><td>${p.entryKind}</td><td>${p.reason ?? ''}</td><td class="num">${ledgerAmount(p.amountMinor, p.currency)}</td><td class="num">${ledgerAmount(p.balanceAfterMinor, p.currency)}</td><td class="mono">${p.transactionId ? html`<a href="${kit.root}/payments/${p.transactionId}">${p.transactionId}</a>` : ''}</td></tr>`,
              )}</tbody></table>`
        }
        <nav class="pager">${beforeSeq !== undefined ? html`<a href="${kit.root}/balances?${base.toString()}">${t.payments.first}</a>` : null}${next ? html`<a rel="next" href="${next}">${t.payments.next}</a>` : null}</nav>
      </div>`;
    return sendPage(kit, request, reply, { lang, title: b.heading, body, session, nav: 'balances' });
  });

  scope.get('/balances/postings.csv', async (request: FastifyRequest<{ Querystring: Query }>, reply: FastifyReply) => {
    const session = sessionOf(request);
    const merchantId = merchantFor(session, request.query);
    if (merchantId === undefined) throw new GatewayError('NOT_FOUND', 'Choose a merchant.');
    const { account } = await ledgerOf(merchantId, request.query);
    await c.audit.record(
      { role: session.subject.role, id: session.subject.id },
      'ledger.export_csv',
      account.id,
      { merchantid: merchantId },
      remoteOrigin(request),
    );
    async function* lines(): AsyncGenerator<string> {
      yield csvRow([
        'account_seq',
        'created_at',
        'entry_id',
        'kind',
        'transactionid',
        'reason',
        'currency',
        'amount',
        'balance_after',
      ]);
      for (let after = 0n; ;) {
        const batch = await repo.postings(account.id, { limit: CSV_BATCH, afterSeq: after });
        for (const p of batch) {
          yield csvRow([
            p.accountSeq,
            new Date(p.createdAt).toISOString(),
            p.entryId,
            p.entryKind,
            p.transactionId,
            p.reason,
            p.currency,
            ledgerDecimal(p.amountMinor),
            ledgerDecimal(p.balanceAfterMinor),
          ]);
        }
        if (batch.length < CSV_BATCH) return;
        after = batch.at(-1)!.accountSeq;
      }
    }
    const day = new Date(services.now()).toISOString().slice(0, 10);
    reply.header('cache-control', 'no-store');
    reply.header('x-content-type-options', 'nosniff');
    reply.header(
      'content-disposition',
      `attachment; filename="${account.id.replace(/[^A-Za-z0-9_-]/g, '_')}-${day}.csv"`,
    );
    return reply.type('text/csv; charset=utf-8').send(Readable.from(lines()));
  });
}
