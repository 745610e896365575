// POST /processor/scb/confirm/:token — SCB's payment confirmation (docs/connectors/scb.md
// "Confirmation"), guarded as KBank's callback is (connectors/kbank/notify-route.ts): SCB signs
// nothing, so the route is reached only through an unguessable last path segment
// (SCB_CONFIRM_PATH_TOKEN, compared in constant time; a wrong one is answered exactly like an
// unknown path), optionally only from listed addresses (SCB_CONFIRM_ALLOW_CIDRS, as TRUST_PROXY
// makes them), with a small JSON body. What passes is handed to the use case as a hint
// (app/processor/receive-notification.ts), which only ever acts through an inquiry. SCB is answered
// its success reply at once, whatever the hint said: it resends a confirmation that is not
// answered 200, and a resend could tell us nothing the inquiry does not.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { newNotificationId } from '../../app/processor/receive-notification.ts';
import { addressAllowList, samePathToken } from '../callback-guard.ts';
import { confirmationReply, confirmationTransactionId } from './wire.ts';

export const SCB_CONFIRM_PREFIX = '/processor/scb/confirm/';
/** SCB's confirmation is under a kilobyte (docs/connectors/scb.md "Confirmation"); anything this large is not one. */
export const CONFIRM_BODY_LIMIT = 16 * 1024;

export type ScbConfirmRouteDeps = {
  /** The secret last segment of the path. */
  pathToken: string;
  /** Addresses or CIDRs confirmations may come from; empty: from anywhere. */
  allowCidrs: readonly string[];
  /** Records the confirmation under `id` and checks the attempt it names; resolves with what it did. */
  receive: (
    body: Buffer,
    contentType: string | undefined,
    clientAddress: string | undefined,
    id: string,
  ) => Promise<string>;
};

export async function registerScbConfirmRoute(app: FastifyInstance, deps: ScbConfirmRouteDeps): Promise<void> {
  const expected = Buffer.from(deps.pathToken, 'utf8');
  const allowed = addressAllowList(deps.allowCidrs);
  // Its own scope: the raw body is kept for the use case, and the API's JSON parser stays as it is.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: CONFIRM_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    scope.post<{ Params: { token: string } }>(
      `${SCB_CONFIRM_PREFIX}:token`,
      {
        bodyLimit: CONFIRM_BODY_LIMIT,
        // Before the body is read: nobody without the token learns more than an unknown path tells.
        onRequest: async (request, reply) => {
          if (!samePathToken(request.params.token, expected)) return reply.callNotFound();
          if (!allowed(request.ip)) {
            request.log.warn(
              { clientAddress: request.ip },
              'SCB confirmation from an address not in SCB_CONFIRM_ALLOW_CIDRS',
            );
            return reply
              .code(403)
              .type('application/json')
              .send('{"resCode":"99","resDesc":"This address may not send confirmations."}');
          }
          return undefined;
        },
      },
      (request, reply) => answer(request, reply, deps),
    );
  });
}

async function answer(request: FastifyRequest, reply: FastifyReply, deps: ScbConfirmRouteDeps): Promise<FastifyReply> {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  // Our id for this confirmation, told to SCB as its confirmId: the record's id in processor_notifications.
  const confirmId = newNotificationId();
  try {
    const outcome = await deps.receive(body, request.headers['content-type'], request.ip, confirmId);
    const details = { outcome, confirmId, clientAddress: request.ip, bytes: body.length };
    if (outcome === 'checked' || outcome === 'duplicate') request.log.info(details, 'SCB confirmation received');
    else request.log.warn(details, `SCB confirmation received: ${outcome}`);
  } catch (error) {
    // Still answered as received: the reconciler finds the payment without the confirmation.
    request.log.error({ err: error, clientAddress: request.ip }, 'SCB confirmation could not be recorded');
  }
  return reply
    .code(200)
    .type('application/json')
    .send(confirmationReply(confirmationTransactionId(body), confirmId));
}
