// Operators only: merchants — create, disable/enable, new API password, new webhook secret,
// issue a console password, what a mismatched payer check does (payer-mismatch: record or hold).
// Each route checks the form, calls one ConsoleMerchantAdmin use case (the CLI's use cases,
// audited) and shows the list again or the secrets it issued, once.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../../domain/errors.ts';
import { html } from '../../hosted-page/html.ts';
import { formBody, formTokenValid, languageOf, remoteOrigin, sessionOf, text } from '../console-kit.ts';
import type { ConsoleDeps } from '../console-deps.ts';
import { formatTime, sendForbidden } from '../page-shell.ts';
import { CONSOLE_TEXTS, type ConsoleLang } from '../texts.ts';
import { sendMerchantList, sendSecrets, type MerchantAction } from './merchant-pages.ts';

const OPERATOR_ONLY = { config: { consoleOperatorOnly: true } };
const MERCHANT_ID = /^[A-Za-z0-9_-]{3,64}$/;
const ACTIONS: readonly MerchantAction[] = [
  'disable',
  'enable',
  'rotate-password',
  'rotate-webhook-secret',
  'console-password',
  'payer-mismatch',
];

type Answer = { deps: ConsoleDeps; request: FastifyRequest; reply: FastifyReply; lang: ConsoleLang };

const actorOf = (request: FastifyRequest) => ({ who: sessionOf(request).subject, origin: remoteOrigin(request) });

export function registerMerchantRoutes(scope: FastifyInstance, deps: ConsoleDeps): void {
  /** A form with a missing or wrong CSRF token changes nothing: 403. */
  function refuseForgedForm(request: FastifyRequest, reply: FastifyReply, lang: ConsoleLang): FastifyReply | undefined {
    if (formTokenValid(deps, request, sessionOf(request), formBody(request).csrf)) return undefined;
    return sendForbidden(deps, request, reply, lang, sessionOf(request), `${deps.root}/merchants`);
  }

  scope.get('/merchants', OPERATOR_ONLY, async (request, reply) =>
    sendMerchantList(deps, request, reply, languageOf(request, reply, deps)),
  );

  scope.post('/merchants', OPERATOR_ONLY, async (request, reply) => {
    const lang = languageOf(request, reply, deps);
    const refused = refuseForgedForm(request, reply, lang);
    if (refused) return refused;
    const body = formBody(request);
    const id = text(body.id, 64);
    const feeRate = text(body.fee_rate, 10);
    const payerMismatch = text(body.payer_mismatch, 10);
    let issued;
    try {
      const merchant = {
        name: text(body.name, 200),
        payoutCurrency: text(body.payout_currency, 3),
        payoutAccount: text(body.payout_account, 40),
        ...(id !== '' && { id }),
        ...(feeRate !== '' && { feeRate }),
        ...(payerMismatch !== '' && { payerMismatch }),
      };
      issued = await deps.merchants.create(merchant, actorOf(request));
    } catch (error) {
      // A field the operator got wrong: the form again, with the reason.
      if (error instanceof GatewayError && (error.tag === 'INVALID_FIELD' || error.tag === 'MISSING_FIELD')) {
        const notice = html`<p class="notice error" role="alert">${error.message}</p>`;
        return sendMerchantList(deps, request, reply, lang, notice, 400);
      }
      throw error;
    }
    return sendSecrets(deps, request, reply, lang, CONSOLE_TEXTS[lang].merchants.created, [
      ['merchantid', issued.merchantid],
      ['password', issued.password],
      ['webhook_secret', issued.webhook_secret],
    ]);
  });

  scope.post(
    '/merchants/:id/:action',
    OPERATOR_ONLY,
    async (request: FastifyRequest<{ Params: { id: string; action: string } }>, reply) => {
      const lang = languageOf(request, reply, deps);
      const { id, action } = request.params;
      if (!MERCHANT_ID.test(id) || !ACTIONS.includes(action as MerchantAction))
        throw new GatewayError('NOT_FOUND', 'No such page.');
      return (
        refuseForgedForm(request, reply, lang) ??
        runAction(action as MerchantAction, id, { deps, request, reply, lang })
      );
    },
  );
}

async function runAction(action: MerchantAction, id: string, { deps, request, reply, lang }: Answer) {
  const m = CONSOLE_TEXTS[lang].merchants;
  const by = actorOf(request);
  switch (action) {
    case 'disable':
    case 'enable': {
      const status = action === 'disable' ? 'disabled' : 'active';
      await deps.merchants.setStatus(id, status, by);
      const notice = html`<p class="notice" role="status">${m.statusChanged}: ${id} → ${m.statusName[status]}</p>`;
      return sendMerchantList(deps, request, reply, lang, notice);
    }
    case 'rotate-password': {
      const issued = await deps.merchants.rotatePassword(id, by);
      return sendSecrets(deps, request, reply, lang, m.rotatedPassword, [
        ['merchantid', id],
        ['password', issued.password],
      ]);
    }
    case 'rotate-webhook-secret': {
      const issued = await deps.merchants.rotateWebhookSecret(id, by);
      const note = issued.previous_valid_until
        ? m.previousUntil(formatTime(Date.parse(issued.previous_valid_until)))
        : m.previousDropped;
      const rows: Array<[string, string]> = [
        ['merchantid', id],
        ['webhook_secret', issued.webhook_secret],
      ];
      return sendSecrets(deps, request, reply, lang, m.rotatedWebhook, rows, note);
    }
    case 'payer-mismatch': {
      let set;
      try {
        set = await deps.merchants.setPayerMismatch(id, text(formBody(request).payer_mismatch, 10), by);
      } catch (error) {
        if (error instanceof GatewayError && error.tag === 'INVALID_FIELD') {
          const notice = html`<p class="notice error" role="alert">${error.message}</p>`;
          return sendMerchantList(deps, request, reply, lang, notice, 400);
        }
        throw error;
      }
      const notice = html`<p class="notice" role="status">${m.payerMismatchChanged}: ${id} → ${m.payerMismatchNames[set]}</p>`;
      return sendMerchantList(deps, request, reply, lang, notice);
    }
    case 'console-password': {
      const issued = await deps.merchants.issueConsolePassword(id, by);
      return sendSecrets(deps, request, reply, lang, m.issuedConsole, [
        ['merchantid', id],
        ['password', issued.password],
      ]);
    }
  }
}
