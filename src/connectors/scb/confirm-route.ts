// POST /processor/scb/confirm/:token — SCB's payment confirmation (docs/connectors/scb.md
// "Confirmation"), guarded as KBank's callback is (connectors/kbank/notify-route.ts): SCB signs
// nothing, so the route is reached only through an unguessable last path segment
// (SCB_CONFIRM_PATH_TOKEN, compared in constant time; a wrong one is answered exactly like an
// unknown path), optionally only from listed addresses (SCB_CONFIRM_ALLOW_CIDRS, as TRUST_PROXY
// makes them), with a small JSON body. What passes is handed to the use case as a hint
// (app/processor/receive-notification.ts), which only ever acts through an inquiry. SCB is answered
// its success reply at once, whatever the hint said: it resends a confirmation that is not
// answered 200, and a resend could tell us nothing the inquiry does not.
// The scope, the guard and the logging are the skeleton both banks share
// (connectors/bank-callback-route.ts).
import type { FastifyInstance } from 'fastify';
import { newNotificationId } from '../../app/processor/receive-notification.ts';
import { registerBankCallbackRoute } from '../bank-callback-route.ts';
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
  await registerBankCallbackRoute(app, {
    prefix: SCB_CONFIRM_PREFIX,
    bodyLimit: CONFIRM_BODY_LIMIT,
    pathToken: deps.pathToken,
    allowCidrs: deps.allowCidrs,
    name: 'SCB confirmation',
    allowCidrsSetting: 'SCB_CONFIRM_ALLOW_CIDRS',
    forbiddenReply: '{"resCode":"99","resDesc":"This address may not send confirmations."}',
    accept: (body, request) => {
      // Our id for this confirmation, told to SCB as its confirmId: the record's id in processor_notifications.
      const confirmId = newNotificationId();
      return {
        receive: () => deps.receive(body, request.headers['content-type'], request.ip, confirmId),
        reply: () => confirmationReply(confirmationTransactionId(body), confirmId),
        details: { confirmId },
      };
    },
  });
}
