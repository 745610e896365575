// Operators only: merchants — create, disable/enable, new API password, new webhook secret,
// issue a console password. Every change goes through ManageMerchants / ConsoleAccounts (the
// CLI's use cases) and is audited. A new secret is shown once, in the answer to the POST
// itself (no-store, never in a URL, never stored in plain), and never again.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { maskedPayoutAccount } from '../../../app/ledger-operations.ts';
import { GatewayError } from '../../../domain/errors.ts';
import { html, type SafeHtml } from '../../hosted-page/html.ts';
import {
  csrfField,
  formBody,
  formToken,
  formTokenValid,
  formatTime,
  languageOf,
  remoteOrigin,
  sendPage,
  sessionOf,
  text,
  type ConsoleKit,
} from '../console-kit.ts';
import { CONSOLE_TEXTS, type ConsoleLang } from '../texts.ts';

const OPERATOR_ONLY = { config: { consoleOperatorOnly: true } };
const MERCHANT_ID = /^[A-Za-z0-9_-]{3,64}$/;
type Action = 'disable' | 'enable' | 'rotate-password' | 'rotate-webhook-secret' | 'console-password';
const ACTIONS: readonly Action[] = [
  'disable',
  'enable',
  'rotate-password',
  'rotate-webhook-secret',
  'console-password',
];

export function registerMerchantRoutes(scope: FastifyInstance, kit: ConsoleKit): void {
  const { services, console: c } = kit;

  async function listPage(
    request: FastifyRequest,
    reply: FastifyReply,
    lang: ConsoleLang,
    notice?: SafeHtml,
    status = 200,
  ) {
    const t = CONSOLE_TEXTS[lang];
    const m = t.merchants;
    const session = sessionOf(request);
    const csrf = formToken(kit, request, reply, session);
    const [merchants, withConsole] = await Promise.all([
      services.manageMerchants.list(),
      kit.services.store.consoleAccounts.merchantsWithConsolePassword(),
    ]);
    const action = (id: string, name: Action, label: string, danger = false) =>
      html`<form class="inline" method="post" action="${kit.root}/merchants/${id}/${name}">${csrfField(csrf)}<button type="submit" class="${danger ? 'danger' : 'secondary'}">${label}</button></form>`;
    const body = html`<h1>${m.heading}</h1>${notice ?? null}
      <div class="card scroll">${
        merchants.length === 0
          ? html`<p>${m.none}</p>`
          : html`<table><thead><tr><th>${m.id}</th><th>${m.name}</th><th>${m.status}</th><th>${m.payoutAccount}</th><th>${t.payments.created}</th><th>${m.actions}</th></tr></thead><tbody>
            ${merchants.map(
              (
                x,
              ) => html`<tr><td class="mono">${x.id}</td><td>${x.name}</td><td><span class="pill s-${x.status}">${m.statusName[x.status]}</span>${withConsole.has(x.id) ? html` <span class="muted">(${m.hasConsole})</span>` : null}</td><td class="mono">${x.payoutCurrency} ••••${maskedPayoutAccount(x.payoutAccount)}</td><td>${formatTime(x.createdAt)}</td>
                <td><div class="actions">${x.status === 'active' ? action(x.id, 'disable', m.disable, true) : action(x.id, 'enable', m.enable)}${action(x.id, 'rotate-password', m.rotatePassword)}${action(x.id, 'rotate-webhook-secret', m.rotateWebhook)}${action(x.id, 'console-password', m.consolePassword)}</div></td></tr>`,
            )}</tbody></table>`
      }</div>
      <section class="card"><h2>${m.create}</h2><form method="post" action="${kit.root}/merchants" class="filters">${csrfField(csrf)}
        <div><label for="name">${m.name}</label><input id="name" name="name" required maxlength="140"></div>
        <div><label for="payout_currency">${m.payoutCurrency}</label><input id="payout_currency" name="payout_currency" required maxlength="3" value="THB"></div>
        <div><label for="payout_account">${m.payoutAccount}</label><input id="payout_account" name="payout_account" required maxlength="40" inputmode="numeric" autocomplete="off"></div>
        <div><label for="id">${m.id} <span class="muted">(${m.idHint})</span></label><input id="id" name="id" maxlength="64"></div>
        <div><label for="fee_rate">${m.feeRate} <span class="muted">(${m.feeRateHint})</span></label><input id="fee_rate" name="fee_rate" maxlength="10" inputmode="decimal"></div>
        <div class="actions"><button type="submit">${m.submit}</button></div>
      </form></section>`;
    return sendPage(
      kit,
      request,
      reply,
      { lang, title: m.heading, body, session, nav: 'merchants', langHref: `${kit.root}/merchants` },
      status,
    );
  }

  /** The answer to a POST that issued secrets: shown now, once. */
  function secretsPage(
    request: FastifyRequest,
    reply: FastifyReply,
    lang: ConsoleLang,
    heading: string,
    rows: Array<[string, string]>,
    note?: string,
  ) {
    const t = CONSOLE_TEXTS[lang];
    const body = html`<h1>${heading}</h1><p class="notice" role="status">${t.merchants.secretsOnce}</p>
      <div class="card"><dl class="kv">${rows.map(([label, value]) => html`<dt>${label}</dt><dd><div class="secret">${value}</div></dd>`)}</dl>${note ? html`<p class="muted">${note}</p>` : null}</div>
      <p><a href="${kit.root}/merchants">${t.merchants.back}</a></p>`;
    return sendPage(kit, request, reply, {
      lang,
      title: heading,
      body,
      session: sessionOf(request),
      nav: 'merchants',
      langHref: `${kit.root}/merchants`,
    });
  }

  function csrfOk(request: FastifyRequest): boolean {
    return formTokenValid(kit, request, sessionOf(request), formBody(request).csrf);
  }

  function forbidden(request: FastifyRequest, reply: FastifyReply, lang: ConsoleLang) {
    const t = CONSOLE_TEXTS[lang];
    return sendPage(
      kit,
      request,
      reply,
      {
        lang,
        title: t.errors.forbiddenTitle,
        body: html`<h1>${t.errors.forbiddenTitle}</h1><div class="card"><p>${t.errors.forbiddenBody}</p></div>`,
        session: sessionOf(request),
        langHref: `${kit.root}/merchants`,
      },
      403,
    );
  }

  scope.get('/merchants', OPERATOR_ONLY, async (request, reply) =>
    listPage(request, reply, languageOf(request, reply, kit)),
  );

  scope.post('/merchants', OPERATOR_ONLY, async (request, reply) => {
    const lang = languageOf(request, reply, kit);
    if (!csrfOk(request)) return forbidden(request, reply, lang);
    const t = CONSOLE_TEXTS[lang];
    const session = sessionOf(request);
    const body = formBody(request);
    const id = text(body.id, 64);
    const feeRate = text(body.fee_rate, 10);
    let issued;
    try {
      issued = await services.manageMerchants.create({
        name: text(body.name, 200),
        payoutCurrency: text(body.payout_currency, 3),
        payoutAccount: text(body.payout_account, 40),
        ...(id !== '' && { id }),
        ...(feeRate !== '' && { feeRate }),
      });
    } catch (error) {
      if (error instanceof GatewayError && httpClientError(error)) {
        return listPage(request, reply, lang, html`<p class="notice error" role="alert">${error.message}</p>`, 400);
      }
      throw error;
    }
    await services.directory.refresh();
    await c.audit.record(
      { role: 'operator', id: session.subject.id },
      'merchant.create',
      issued.merchantid,
      { name: text(body.name, 200), payout_currency: text(body.payout_currency, 3) },
      remoteOrigin(request),
    );
    return secretsPage(request, reply, lang, t.merchants.created, [
      ['merchantid', issued.merchantid],
      ['password', issued.password],
      ['webhook_secret', issued.webhook_secret],
    ]);
  });

  scope.post(
    '/merchants/:id/:action',
    OPERATOR_ONLY,
    async (request: FastifyRequest<{ Params: { id: string; action: string } }>, reply) => {
      const lang = languageOf(request, reply, kit);
      const { id, action } = request.params;
      if (!MERCHANT_ID.test(id) || !ACTIONS.includes(action as Action))
        throw new GatewayError('NOT_FOUND', 'No such page.');
      if (!csrfOk(request)) return forbidden(request, reply, lang);
      const t = CONSOLE_TEXTS[lang];
      const m = t.merchants;
      const actor = { role: 'operator' as const, id: sessionOf(request).subject.id };
      const audit = (name: string, details: Record<string, unknown> = {}) =>
        c.audit.record(actor, name, id, details, remoteOrigin(request));
      switch (action as Action) {
        case 'disable':
        case 'enable': {
          const status = action === 'disable' ? 'disabled' : 'active';
          await services.manageMerchants.setStatus(id, status);
          if (status === 'disabled') await kit.services.store.consoleAccounts.deleteSessionsOf('merchant', id);
          await services.directory.refresh();
          await audit(`merchant.${action}`);
          return listPage(
            request,
            reply,
            lang,
            html`<p class="notice" role="status">${m.statusChanged}: ${id} → ${m.statusName[status]}</p>`,
          );
        }
        case 'rotate-password': {
          const issued = await services.manageMerchants.rotatePassword(id);
          await services.directory.refresh();
          await audit('merchant.rotate_password');
          return secretsPage(request, reply, lang, m.rotatedPassword, [
            ['merchantid', id],
            ['password', issued.password],
          ]);
        }
        case 'rotate-webhook-secret': {
          const issued = await services.manageMerchants.rotateWebhookSecret(id);
          await services.directory.refresh();
          await audit('merchant.rotate_webhook_secret', { previous_valid_until: issued.previous_valid_until });
          const note = issued.previous_valid_until
            ? m.previousUntil(formatTime(Date.parse(issued.previous_valid_until)))
            : m.previousDropped;
          return secretsPage(
            request,
            reply,
            lang,
            m.rotatedWebhook,
            [
              ['merchantid', id],
              ['webhook_secret', issued.webhook_secret],
            ],
            note,
          );
        }
        case 'console-password': {
          const issued = await c.accounts.issueMerchantPassword(id);
          await audit('merchant.console_password');
          return secretsPage(request, reply, lang, m.issuedConsole, [
            ['merchantid', id],
            ['password', issued.password],
          ]);
        }
      }
    },
  );
}

function httpClientError(error: GatewayError): boolean {
  return error.tag === 'INVALID_FIELD' || error.tag === 'MISSING_FIELD';
}
