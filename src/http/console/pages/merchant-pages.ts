// The merchants page's answers (operators only): the list with each merchant's actions and
// the create form, and the page that shows newly issued secrets — once, in the answer to the
// POST that issued them (no-store, never in a URL), and never again.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { maskedPayoutAccount } from '../../../app/ledger-operations.ts';
import type { MerchantRecord } from '../../../domain/merchant.ts';
import { PAYER_MISMATCH_POLICIES, type PayerMismatchPolicy } from '../../../domain/payer-check.ts';
import { html, type SafeHtml } from '../../hosted-page/html.ts';
import { formToken, sessionOf } from '../console-kit.ts';
import type { ConsoleDeps, ConsoleSite } from '../console-deps.ts';
import { csrfField, formatTime, sendPage } from '../page-shell.ts';
import { CONSOLE_TEXTS, type ConsoleLang } from '../texts.ts';

export type MerchantAction =
  'disable' | 'enable' | 'rotate-password' | 'rotate-webhook-secret' | 'console-password' | 'payer-mismatch';

/** The list and the create form, with a notice above them (a status change, a refused form). */
export async function sendMerchantList(
  deps: ConsoleSite & Pick<ConsoleDeps, 'merchants'>,
  request: FastifyRequest,
  reply: FastifyReply,
  lang: ConsoleLang,
  notice?: SafeHtml,
  status = 200,
): Promise<FastifyReply> {
  const t = CONSOLE_TEXTS[lang];
  const session = sessionOf(request);
  const csrf = formToken(deps, request, reply, session);
  const { merchants, withConsole } = await deps.merchants.list();
  const body = listBody(deps, lang, csrf, merchants, withConsole, notice);
  return sendPage(
    deps,
    request,
    reply,
    { lang, title: t.merchants.heading, body, session, nav: 'merchants', langHref: `${deps.root}/merchants` },
    status,
  );
}

function listBody(
  site: ConsoleSite,
  lang: ConsoleLang,
  csrf: string,
  merchants: MerchantRecord[],
  withConsole: Set<string>,
  notice: SafeHtml | undefined,
): SafeHtml {
  const t = CONSOLE_TEXTS[lang];
  const m = t.merchants;
  const action = (id: string, name: MerchantAction, label: string, danger = false) =>
    html`<form class="inline" method="post" action="${site.root}/merchants/${id}/${name}">${csrfField(csrf)}<button type="submit" class="${danger ? 'danger' : 'secondary'}">${label}</button></form>`;
  return html`<h1>${m.heading}</h1>${notice ?? null}
      <div class="card scroll">${
        merchants.length === 0
          ? html`<p>${m.none}</p>`
          : html`<table><thead><tr><th class="key">${m.id}</th><th class="key">${m.name}</th><th class="key">${m.status}</th><th>${m.payoutAccount}</th><th>${t.payments.created}</th><th>${m.payerMismatch}</th><th>${m.actions}</th></tr></thead><tbody>
            ${merchants.map(
              (
                x,
              ) => html`<tr><td class="mono">${x.id}</td><td>${x.name}</td><td><span class="pill s-${x.status}">${m.statusName[x.status]}</span>${withConsole.has(x.id) ? html` <span class="muted">(${m.hasConsole})</span>` : null}</td><td class="mono">${x.payoutCurrency} ••••${maskedPayoutAccount(x.payoutAccount)}</td><td>${formatTime(x.createdAt)}</td>
                <td>${payerMismatchForm(site.root, m, csrf, x)}</td>
                <td><div class="actions">${x.status === 'active' ? action(x.id, 'disable', m.disable, true) : action(x.id, 'enable', m.enable)}${action(x.id, 'rotate-password', m.rotatePassword)}${action(x.id, 'rotate-webhook-secret', m.rotateWebhook)}${action(x.id, 'console-password', m.consolePassword)}</div></td></tr>`,
            )}</tbody></table>`
      }</div>
      <section class="card"><h2>${m.create}</h2><form method="post" action="${site.root}/merchants" class="filters">${csrfField(csrf)}
        <div><label for="name">${m.name}</label><input id="name" name="name" required maxlength="140"></div>
        <div><label for="payout_currency">${m.payoutCurrency}</label><input id="payout_currency" name="payout_currency" required maxlength="3" value="THB"></div>
        <div><label for="payout_account">${m.payoutAccount}</label><input id="payout_account" name="payout_account" required maxlength="40" inputmode="numeric" autocomplete="off"></div>
        <div><label for="id">${m.id} <span class="muted">(${m.idHint})</span></label><input id="id" name="id" maxlength="64"></div>
        <div><label for="fee_rate">${m.feeRate} <span class="muted">(${m.feeRateHint})</span></label><input id="fee_rate" name="fee_rate" maxlength="10" inputmode="decimal"></div>
        <div><label for="payer_mismatch">${m.payerMismatch} <span class="muted">(${m.payerMismatchHint})</span></label>${payerMismatchSelect(m, 'payer_mismatch', 'record')}</div>
        <div class="actions"><button type="submit">${m.submit}</button></div>
      </form></section>`;
}

type MerchantTexts = (typeof CONSOLE_TEXTS)[ConsoleLang]['merchants'];

/** record or hold, the current one selected (docs/operations.md "Payer check"). */
function payerMismatchSelect(m: MerchantTexts, id: string, current: PayerMismatchPolicy): SafeHtml {
  return html`<select id="${id}" name="payer_mismatch" aria-label="${m.payerMismatch}">${PAYER_MISMATCH_POLICIES.map((p) => (p === current ? html`<option value="${p}" selected>${m.payerMismatchNames[p]}</option>` : html`<option value="${p}">${m.payerMismatchNames[p]}</option>`))}</select>`;
}

/** A merchant's payer_mismatch setting, changed in place (audited as merchant.payer_mismatch). */
function payerMismatchForm(root: string, m: MerchantTexts, csrf: string, x: MerchantRecord): SafeHtml {
  return html`<form class="inline" method="post" action="${root}/merchants/${x.id}/payer-mismatch">${csrfField(csrf)}${payerMismatchSelect(m, `pm-${x.id}`, x.payerMismatch)} <button type="submit" class="secondary">${m.setPayerMismatch}</button></form>`;
}

/** The answer to a POST that issued secrets: shown now, once. */
export function sendSecrets(
  site: ConsoleSite,
  request: FastifyRequest,
  reply: FastifyReply,
  lang: ConsoleLang,
  heading: string,
  rows: Array<[string, string]>,
  note?: string,
): FastifyReply {
  const t = CONSOLE_TEXTS[lang];
  const body = html`<h1>${heading}</h1><p class="notice" role="status">${t.merchants.secretsOnce}</p>
      <div class="card"><dl class="kv">${rows.map(([label, value]) => html`<dt>${label}</dt><dd><div class="secret">${value}</div></dd>`)}</dl>${note ? html`<p class="muted">${note}</p>` : null}</div>
      <p><a href="${site.root}/merchants">${t.merchants.back}</a></p>`;
  return sendPage(site, request, reply, {
    lang,
    title: heading,
    body,
    session: sessionOf(request),
    nav: 'merchants',
    langHref: `${site.root}/merchants`,
  });
}
