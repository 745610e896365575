// The forms on a payment's page: resend a notification, refund, and in sandbox complete the
// payment. Each route checks the form's CSRF token, reads its fields and calls one use case
// (ConsolePaymentActions: the API's and the CLI's use cases, audited), then redirects back to
// the payment with what happened. A refund takes two posts: the first shows what it would do
// (refund-confirm.ts), the second, carrying that page's confirmation token, refunds. Recording a
// refund already paid by bank transfer takes one post with a required "already sent" box and who
// sent it (paid_by); a refused one shows the payment's page again with the form as typed and the
// reason in it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ALREADY_SENT_FIELD } from '../../../app/console/payment-actions.ts';
import { GatewayError, isGatewayError } from '../../../domain/errors.ts';
import { PAID_BY_FIELD } from '../../../domain/transfer-refund.ts';
import { isSandboxOutcome, SANDBOX_OUTCOMES } from '../../../domain/lifecycle.ts';
import { formBody, formTokenValid, languageOf, remoteOrigin, sessionOf } from '../console-kit.ts';
import type { ConsoleDeps } from '../console-deps.ts';
import { httpStatusOf } from '../../edge/error-status.ts';
import { sendForbidden } from '../page-shell.ts';
import { sendPaymentDetail } from './payment-detail.ts';
import { refundConfirmed, sendRefundConfirmation } from './refund-confirm.ts';

type PaymentPost = FastifyRequest<{ Params: { id: string } }>;

/** The bank-transfer form's field a refusal is about, when its sentence does not name one. */
const FIELD_OF_REFUSAL: Partial<Record<string, string>> = {
  REFUND_EXCEEDS_AVAILABLE: 'amount',
  INSUFFICIENT_BALANCE: 'amount',
  IDEMPOTENCY_KEY_REUSED: 'transfer_reference',
};

export function registerPaymentActionRoutes(scope: FastifyInstance, deps: ConsoleDeps): void {
  /** A form post's CSRF check; a failure is a 403 page and changes nothing. */
  function checkForm(request: FastifyRequest, reply: FastifyReply): boolean {
    const session = sessionOf(request);
    if (formTokenValid(deps, request, session, formBody(request).csrf)) return true;
    const lang = languageOf(request, reply, deps);
    void sendForbidden(deps, request, reply, lang, session, `${deps.root}/payments`);
    return false;
  }

  const actor = (request: FastifyRequest) => ({ who: sessionOf(request).subject, origin: remoteOrigin(request) });

  // Without `event`: the payment's result notification; with it, one of its refund notifications.
  scope.post('/payments/:id/resend', async (request: PaymentPost, reply) => {
    if (!checkForm(request, reply)) return reply;
    const asked = formBody(request).event;
    const resent = await deps.paymentActions.resend({
      ...actor(request),
      transactionId: request.params.id,
      ...(typeof asked === 'string' && asked !== '' && { eventId: asked.slice(0, 100) }),
    });
    const anchor = resent.refundId ? '#refunds' : '#notification';
    return reply.redirect(
      `${deps.root}/payments/${resent.transactionId}?done=resent&series=${resent.series}${anchor}`,
      303,
    );
  });

  scope.post('/payments/:id/refund', async (request: PaymentPost, reply) => {
    if (!checkForm(request, reply)) return reply;
    const body = formBody(request);
    const form = {
      amount: typeof body.amount === 'string' ? body.amount.trim().replace(/,/g, '') : '',
      reason: typeof body.reason === 'string' ? body.reason : null,
      reference: typeof body.refund_key === 'string' && body.refund_key !== '' ? body.refund_key : null,
    };
    const asked = { ...actor(request), transactionId: request.params.id, form };
    const key = form.reference ?? '';
    // Without the token of a confirmation page showing exactly this refund, show that page.
    const named = typeof body.confirm === 'string' ? await deps.paymentActions.previewRefund(asked, false) : undefined;
    if (!named || !refundConfirmed(deps, request, named, key, body.confirm))
      return sendRefundConfirmation(deps, request, reply, await deps.paymentActions.previewRefund(asked), key);
    const refunded = await deps.paymentActions.refund(asked);
    return reply.redirect(
      `${deps.root}/payments/${refunded.transactionId}?done=refunded&refund=${refunded.refundId}#refunds`,
      303,
    );
  });

  scope.post('/payments/:id/record-refund', async (request: PaymentPost, reply) => {
    if (!checkForm(request, reply)) return reply;
    const body = formBody(request);
    const field = (name: string, max: number) => (typeof body[name] === 'string' ? body[name].slice(0, max) : '');
    const form = {
      amount: field('amount', 64).trim().replace(/,/g, ''),
      transferReference: field('transfer_reference', 256),
      reason: field('reason', 1024),
      alreadySent: body[ALREADY_SENT_FIELD] === 'yes',
      paidBy: field(PAID_BY_FIELD, 16),
    };
    try {
      const recorded = await deps.paymentActions.recordTransfer({
        ...actor(request),
        transactionId: request.params.id,
        form: { ...form, reason: form.reason === '' ? null : form.reason },
      });
      const done = recorded.replayed ? 'recorded-before' : 'recorded';
      return reply.redirect(
        `${deps.root}/payments/${recorded.transactionId}?done=${done}&refund=${recorded.refundId}#refunds`,
        303,
      );
    } catch (error) {
      // Not yours or no such payment: the same 404 as everywhere. A refusal: the form again, saying why.
      if (!isGatewayError(error) || error.tag === 'NOT_FOUND' || httpStatusOf(error) >= 500) throw error;
      const named = /^The field '([a-z_]+)'/.exec(error.message)?.[1] ?? FIELD_OF_REFUSAL[error.tag];
      const state = { ...form, error: error.message, field: named };
      return sendPaymentDetail(deps, request, reply, request.params.id, state, httpStatusOf(error));
    }
  });

  scope.post('/payments/:id/complete', async (request: PaymentPost, reply) => {
    // Checked before the form: in live mode this page does not exist, whatever was posted.
    if (!deps.sandbox) throw new GatewayError('NOT_FOUND', 'Sandbox completion is not available in live mode.');
    if (!checkForm(request, reply)) return reply;
    const outcome = formBody(request).outcome;
    if (!isSandboxOutcome(outcome))
      throw new GatewayError(
        'INVALID_FIELD',
        `The field 'outcome' is invalid: it must be one of ${SANDBOX_OUTCOMES.join(', ')}.`,
      );
    const result = await deps.paymentActions.complete({ ...actor(request), transactionId: request.params.id, outcome });
    // Not completed: someone finished it first, and the page shows what won.
    const done = result.completed ? '?done=completed' : '';
    return reply.redirect(`${deps.root}/payments/${result.transactionId}${done}`, 303);
  });
}
