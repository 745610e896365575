// Operators only: the needs-attention list (docs/console.md "Needs attention"). Open items first,
// newest first, each with its payment, what happened and a form to mark it resolved with a note
// (ConsoleAttention.resolve, audited as `attention.resolve`) — for a payment the payer check holds,
// the same form with two buttons, accept or decline; then the resolved ones, with who resolved
// them and their note. A merchant gets the same 404 as for an unknown page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PAYER_DECISIONS, type AttentionEntry, type PayerDecision } from '../../../app/console/attention.ts';
import { GatewayError } from '../../../domain/errors.ts';
import { formatMinor, groupThousands } from '../../../domain/money.ts';
import { html, type SafeHtml } from '../../hosted-page/html.ts';
import { formBody, formToken, formTokenValid, languageOf, remoteOrigin, sessionOf } from '../console-kit.ts';
import type { ConsoleDeps } from '../console-deps.ts';
import { csrfField, formatTime, sendForbidden, sendPage } from '../page-shell.ts';
import { CONSOLE_TEXTS, type ConsoleLang, type ConsoleTexts } from '../texts.ts';
import { ledgerAmount } from './ledger-format.ts';

const OPERATOR_ONLY = { config: { consoleOperatorOnly: true } };
const ITEM_ID = /^att_[A-Za-z0-9_-]{1,64}$/;

export function registerAttentionRoutes(scope: FastifyInstance, deps: ConsoleDeps): void {
  scope.get(
    '/attention',
    OPERATOR_ONLY,
    async (request: FastifyRequest<{ Querystring: Record<string, unknown> }>, reply) => {
      const lang = languageOf(request, reply, deps);
      const { done, item } = request.query;
      const a = CONSOLE_TEXTS[lang].attention;
      const said =
        typeof item !== 'string' || !ITEM_ID.test(item)
          ? undefined
          : done === 'resolved'
            ? a.done(item)
            : done === 'accept' || done === 'decline'
              ? a.decided(item, done)
              : undefined;
      const notice = said ? html`<p class="notice" role="status">${said}</p>` : undefined;
      return sendAttentionPage(deps, request, reply, lang, notice);
    },
  );

  scope.post(
    '/attention/:id/resolve',
    OPERATOR_ONLY,
    async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const lang = languageOf(request, reply, deps);
      const session = sessionOf(request);
      const { id } = request.params;
      if (!ITEM_ID.test(id)) throw new GatewayError('NOT_FOUND', 'No such page.');
      const body = formBody(request);
      if (!formTokenValid(deps, request, session, body.csrf))
        return sendForbidden(deps, request, reply, lang, session, `${deps.root}/attention`);
      const decision = PAYER_DECISIONS.find((d) => d === body.decision);
      try {
        await deps.attention.resolve({
          id,
          note: typeof body.note === 'string' ? body.note : '',
          by: { who: session.subject, origin: remoteOrigin(request) },
          decision,
        });
      } catch (error) {
        // Resolved already (a second click, another operator first) or no note: the list again, with why.
        if (error instanceof GatewayError && error.tag === 'INVALID_STATE') {
          const notice = html`<p class="notice error" role="alert">${CONSOLE_TEXTS[lang].attention.already}</p>`;
          return sendAttentionPage(deps, request, reply, lang, notice, 409);
        }
        if (error instanceof GatewayError && (error.tag === 'INVALID_FIELD' || error.tag === 'MISSING_FIELD')) {
          const notice = html`<p class="notice error" role="alert">${error.message}</p>`;
          return sendAttentionPage(deps, request, reply, lang, notice, 400);
        }
        throw error;
      }
      return reply.redirect(`${deps.root}/attention?done=${decision ?? 'resolved'}&item=${id}`, 303);
    },
  );
}

async function sendAttentionPage(
  deps: ConsoleDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  lang: ConsoleLang,
  notice: SafeHtml | undefined,
  status = 200,
): Promise<FastifyReply> {
  const t = CONSOLE_TEXTS[lang];
  const session = sessionOf(request);
  const [open, resolved] = await Promise.all([
    deps.attention.list(true, session.subject),
    deps.attention.list(false, session.subject),
  ]);
  const csrf = formToken(deps, request, reply, session);
  const a = t.attention;
  const body = html`<h1>${a.heading}</h1>${notice ?? null}
      <p class="muted">${a.intro}</p>
      <h2>${a.open} (${String(open.length)})</h2>
      ${open.length === 0 ? html`<div class="card"><p>${a.noneOpen}</p></div>` : open.map((e) => openCard(deps.root, t, e, csrf))}
      <h2>${a.resolved}</h2>
      <div class="card scroll">${
        resolved.length === 0
          ? html`<p>${a.noneResolved}</p>`
          : html`<table><thead><tr><th>${a.raised}</th><th>${a.kind}</th><th class="key">${a.payment}</th><th>${a.detail}</th><th class="num key">${a.amount}</th><th>${a.resolvedBy}</th><th>${a.resolvedAt}</th><th>${a.resolution}</th></tr></thead><tbody>
            ${resolved.map(
              (e) =>
                html`<tr><td>${formatTime(e.item.createdAt)}</td><td>${a.kinds[e.item.kind] ?? e.item.kind}</td><td>${paymentLink(deps.root, e)}</td><td>${e.item.detail}</td><td class="num">${amountOf(e)}</td><td class="mono">${e.item.resolvedBy ?? ''}</td><td>${formatTime(e.item.resolvedAt)}</td><td>${e.item.resolution ?? ''}</td></tr>`,
            )}</tbody></table>`
      }</div>`;
  return sendPage(
    deps,
    request,
    reply,
    { lang, title: a.heading, body, session, nav: 'attention', langHref: `${deps.root}/attention` },
    status,
  );
}

/** One open item: what happened, its payment, and the form that marks it resolved. */
function openCard(root: string, t: ConsoleTexts, e: AttentionEntry, csrf: string): SafeHtml {
  const a = t.attention;
  const { item, payment } = e;
  return html`<section class="card" id="${item.id}"><h2><span class="pill s-FAILED">${a.kinds[item.kind] ?? item.kind}</span> <span class="mono">${item.id}</span></h2><dl class="kv">
        <dt>${a.raised}</dt><dd>${formatTime(item.createdAt)}</dd>
        <dt>${a.payment}</dt><dd>${paymentLink(root, e)}</dd>
        ${payment ? html`<dt>${t.payments.amount}</dt><dd>${ledgerAmount(payment.amountMinor, payment.currency)}</dd>` : null}
        <dt>${a.amount}</dt><dd>${amountOf(e)}</dd>
        <dt>${a.reference}</dt><dd class="mono">${item.reference ?? '—'}</dd>
        <dt>${a.detail}</dt><dd>${item.detail}</dd>
      </dl>
      ${item.kind === 'payer_mismatch' ? html`<p class="muted">${a.decisionHint}</p>` : null}
      <form method="post" action="${root}/attention/${item.id}/resolve" class="actions">${csrfField(csrf)}<div><label for="note-${item.id}">${a.note}</label><input id="note-${item.id}" name="note" required maxlength="500" autocomplete="off"></div>${item.kind === 'payer_mismatch' ? PAYER_DECISIONS.map((d) => decisionButton(a, d)) : html`<button type="submit">${a.resolve}</button>`}</form></section>`;
}

/** One of the two ways a held payment's item is resolved; the button's value is the decision. */
function decisionButton(a: ConsoleTexts['attention'], decision: PayerDecision): SafeHtml {
  return html`<button type="submit" name="decision" value="${decision}" class="${decision === 'decline' ? 'danger' : ''}">${decision === 'accept' ? a.accept : a.decline}</button>`;
}

function paymentLink(root: string, { item, payment }: AttentionEntry): SafeHtml {
  return html`<a class="mono" href="${root}/payments/${item.transactionId}">${item.transactionId}</a>${payment ? html`<br><span class="muted">${payment.trackid} · ${payment.merchantId}</span>` : null}`;
}

/** The amount the processor reported, exact (1/10,000), in the payment's currency. */
function amountOf({ item, payment }: AttentionEntry): string {
  if (item.amountMinor === null) return '—';
  return payment ? ledgerAmount(item.amountMinor, payment.currency) : groupThousands(formatMinor(item.amountMinor, 4));
}
