// POST /processor/kbank/notify/:token — KBank's payment callback (docs/connectors/kbank.md
// "Callback"). KBank signs nothing, so the callback is guarded by what can be checked: an
// unguessable last path segment (KBANK_CALLBACK_PATH_TOKEN, compared in constant time; a wrong one
// is answered exactly like an unknown path), optionally the sender's address (KBANK_CALLBACK_ALLOW_CIDRS,
// as TRUST_PROXY makes it), a small JSON body. What passes is handed to the use case as a hint
// (app/processor/receive-notification.ts), which only ever acts through an inquiry; KBank is
// answered its success envelope at once, whatever the hint said, so it never retries a callback
// we could not read.
// The scope, the guard and the logging are the skeleton both banks share
// (connectors/bank-callback-route.ts).
import type { FastifyInstance } from 'fastify';
import { registerBankCallbackRoute } from '../bank-callback-route.ts';
import { CALLBACK_ANSWER } from './wire.ts';

export const KBANK_NOTIFY_PREFIX = '/processor/kbank/notify/';
/** KBank's callback is a few hundred bytes (docs/connectors/kbank-sim.md); anything this large is not one. */
export const NOTIFY_BODY_LIMIT = 16 * 1024;

export type KbankNotifyRouteDeps = {
  /** The secret last segment of the path. */
  pathToken: string;
  /** Addresses or CIDRs callbacks may come from; empty: from anywhere. */
  allowCidrs: readonly string[];
  /** Records the callback and checks the attempt it names; resolves with what it did. */
  receive: (body: Buffer, contentType: string | undefined, clientAddress: string | undefined) => Promise<string>;
};

export async function registerKbankNotifyRoute(app: FastifyInstance, deps: KbankNotifyRouteDeps): Promise<void> {
  await registerBankCallbackRoute(app, {
    prefix: KBANK_NOTIFY_PREFIX,
    bodyLimit: NOTIFY_BODY_LIMIT,
    pathToken: deps.pathToken,
    allowCidrs: deps.allowCidrs,
    name: 'KBank callback',
    allowCidrsSetting: 'KBANK_CALLBACK_ALLOW_CIDRS',
    forbiddenReply: '{"statusCode":"10","errorCode":"forbidden","errorDesc":"This address may not send callbacks."}',
    accept: (body, request) => ({
      receive: () => deps.receive(body, request.headers['content-type'], request.ip),
      reply: () => CALLBACK_ANSWER,
    }),
  });
}
