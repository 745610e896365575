// Balances and ledger postings (docs/console.md "Pages"): a merchant sees its own accounts; an
// operator picks a merchant. Postings are paged on the account's own chain (account_seq, unique
// index), newest first. The CSV export of an account is postings-csv.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { LedgerView } from '../../../app/console/console-ledger.ts';
import type { ActiveSession } from '../../../app/console/console-sessions.ts';
import type { PostingRow } from '../../../app/ports/console.ts';
import type { MerchantRecord } from '../../../domain/merchant.ts';
import { html, raw, type SafeHtml } from '../../hosted-page/html.ts';
import { languageOf, scopeOf, sessionOf } from '../console-kit.ts';
import type { ConsoleDeps } from '../console-deps.ts';
import { formatTime, sendPage } from '../page-shell.ts';
import { CONSOLE_TEXTS, type ConsoleTexts } from '../texts.ts';
import { ledgerAmount } from './ledger-format.ts';

const PAGE_SIZE = 50;
const MERCHANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

export type Query = Record<string, unknown>;

/** The merchant whose ledger is shown: the session's own, or the operator's choice (undefined: none chosen yet). */
export function merchantFor(session: ActiveSession, query: Query): string | undefined {
  const own = scopeOf(session);
  if (own !== undefined) return own;
  return typeof query.merchant === 'string' && MERCHANT_ID.test(query.merchant) ? query.merchant : undefined;
}

/** The account asked for with `?account=`, if any (the use case falls back to the payout account). */
export function accountAsked(query: Query): string | undefined {
  return typeof query.account === 'string' ? query.account : undefined;
}

export function registerBalanceRoutes(scope: FastifyInstance, deps: ConsoleDeps): void {
  scope.get('/balances', async (request: FastifyRequest<{ Querystring: Query }>, reply) => {
    const lang = languageOf(request, reply, deps);
    const t = CONSOLE_TEXTS[lang];
    const b = t.balances;
    const session = sessionOf(request);
    const merchantId = merchantFor(session, request.query);
    const operator = session.subject.role === 'operator';
    const picker = operator ? merchantPicker(deps.root, t, await deps.ledger.merchants(), merchantId) : null;
    if (merchantId === undefined)
      return sendPage(deps, request, reply, {
        lang,
        title: b.heading,
        body: html`<h1>${b.heading}</h1>${picker}`,
        session,
        nav: 'balances',
      });

    const view = await deps.ledger.view(session.subject, merchantId, accountAsked(request.query));
    const before = request.query.before;
    const beforeSeq = typeof before === 'string' && /^\d{1,18}$/.test(before) ? BigInt(before) : undefined;
    const rows = await deps.ledger.postings(view.account, {
      limit: PAGE_SIZE + 1,
      ...(beforeSeq !== undefined && { beforeSeq }),
    });
    const body = ledgerBody({ root: deps.root, t, picker, operator, merchantId, view, rows, beforeSeq });
    return sendPage(deps, request, reply, { lang, title: b.heading, body, session, nav: 'balances' });
  });
}

function merchantPicker(
  root: string,
  t: ConsoleTexts,
  merchants: MerchantRecord[],
  merchantId: string | undefined,
): SafeHtml {
  const b = t.balances;
  return html`<div class="card"><form method="get" action="${root}/balances" class="actions">
              <div><label for="merchant">${b.chooseMerchant}</label><select id="merchant" name="merchant">${merchants.map((m) => html`<option value="${m.id}"${raw(m.id === merchantId ? ' selected' : '')}>${m.id} — ${m.name}</option>`)}</select></div>
              <button type="submit">${b.show}</button></form></div>`;
}

type LedgerPage = {
  root: string;
  t: ConsoleTexts;
  picker: SafeHtml | null;
  operator: boolean;
  merchantId: string;
  view: LedgerView;
  /** Up to PAGE_SIZE + 1 postings: one more than a page means there is a next page. */
  rows: PostingRow[];
  beforeSeq: bigint | undefined;
};

function ledgerBody({ root, t, picker, operator, merchantId, view, rows, beforeSeq }: LedgerPage): SafeHtml {
  const b = t.balances;
  const { shown, account } = view;
  const postings = rows.slice(0, PAGE_SIZE);
  const base = new URLSearchParams({
    ...(operator && { merchant: merchantId }),
    account: account.id,
  });
  const next =
    rows.length > PAGE_SIZE ? `${root}/balances?${base.toString()}&before=${postings.at(-1)!.accountSeq}` : undefined;
  return html`<h1>${b.heading}</h1>${picker}
      <div class="card scroll"><h2>${shown.merchant.name} <span class="mono">${shown.merchant.id}</span></h2>
        <table><thead><tr><th class="key">${t.detail.account}</th><th class="num key">${b.balance}</th><th class="num">${b.postings}</th></tr></thead><tbody>
          ${shown.accounts.map(
            (a) =>
              html`<tr><td class="mono"><a href="${root}/balances?${new URLSearchParams({ ...(operator && { merchant: merchantId }), account: a.id }).toString()}"${raw(a.id === account.id ? ' aria-current="true"' : '')}>${a.id}</a>${a.isPayoutAccount ? html` <span class="pill s-active">${b.payoutAccount}</span>` : null}</td><td class="num">${ledgerAmount(a.balanceMinor, a.currency)}</td><td class="num">${a.postingCount.toString()}</td></tr>`,
          )}
        </tbody></table></div>
      <div class="card scroll"><h2>${b.postings} <span class="mono">${account.id}</span></h2>
        <p><a class="button secondary" href="${root}/balances/postings.csv?${base.toString()}" download>${b.exportCsv}</a></p>
        ${
          postings.length === 0
            ? html`<p class="muted">${b.noPostings}</p>`
            : html`<table><thead><tr><th class="num">#</th><th>${t.payments.created}</th><th>${b.kind}</th><th>${b.reasonCol}</th><th class="num key">${t.payments.amount}</th><th class="num key">${t.detail.balanceAfter}</th><th>${b.payment}</th></tr></thead><tbody>
              ${postings.map(
                (p) =>
                  html`<tr><td class="num">${p.accountSeq.toString()}</td><td>${formatTime(p.createdAt)}</td><td>${p.entryKind}</td><td>${p.reason ?? ''}${p.refundReason ? ` — ${p.refundReason}` : ''}</td><td class="num">${ledgerAmount(p.amountMinor, p.currency)}</td><td class="num">${ledgerAmount(p.balanceAfterMinor, p.currency)}</td><td class="mono">${p.transactionId ? html`<a href="${root}/payments/${p.transactionId}${p.refundId ? '#refunds' : ''}">${p.transactionId}</a>` : ''}</td></tr>`,
              )}</tbody></table>`
        }
        <nav class="pager">${beforeSeq !== undefined ? html`<a href="${root}/balances?${base.toString()}">${t.payments.first}</a>` : null}${next ? html`<a rel="next" href="${next}">${t.payments.next}</a>` : null}</nav>
      </div>`;
}
