// POST /processor/kbank/notify/:token — KBank's payment callback (docs/connectors/kbank.md
// "Callback"). KBank signs nothing, so the callback is guarded by what can be checked: an
// unguessable last path segment (KBANK_CALLBACK_PATH_TOKEN, compared in constant time; a wrong one
// is answered exactly like an unknown path), optionally the sender's address (KBANK_CALLBACK_ALLOW_CIDRS,
// as TRUST_PROXY makes it), a small JSON body. What passes is handed to the use case as a hint
// (app/processor/receive-notification.ts), which only ever acts through an inquiry; KBank is
// answered its success envelope at once, whatever the hint said, so it never retries a callback
// we could not read.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addressAllowList, samePathToken } from '../callback-guard.ts';
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
  const expected = Buffer.from(deps.pathToken, 'utf8');
  const allowed = addressAllowList(deps.allowCidrs);
  // Its own scope: the raw body is kept for the use case, and the API's JSON parser stays as it is.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: NOTIFY_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    scope.post<{ Params: { token: string } }>(
      `${KBANK_NOTIFY_PREFIX}:token`,
      {
        bodyLimit: NOTIFY_BODY_LIMIT,
        // Before the body is read: nobody without the token learns more than an unknown path tells.
        onRequest: async (request, reply) => {
          if (!samePathToken(request.params.token, expected)) return reply.callNotFound();
          if (!allowed(request.ip)) {
            request.log.warn(
              { clientAddress: request.ip },
              'KBank callback from an address not in KBANK_CALLBACK_ALLOW_CIDRS',
            );
            return reply
              .code(403)
              .type('application/json')
              .send('{"statusCode":"10","errorCode":"forbidden","errorDesc":"This address may not send callbacks."}');
          }
          return undefined;
        },
      },
      (request, reply) => answer(request, reply, deps),
    );
  });
}

async function answer(request: FastifyRequest, reply: FastifyReply, deps: KbankNotifyRouteDeps): Promise<FastifyReply> {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  try {
    const outcome = await deps.receive(body, request.headers['content-type'], request.ip);
    const details = { outcome, clientAddress: request.ip, bytes: body.length };
    if (outcome === 'checked' || outcome === 'duplicate') request.log.info(details, 'KBank callback received');
    else request.log.warn(details, `KBank callback received: ${outcome}`);
  } catch (error) {
    // Still answered as received: the reconciler finds the payment without the callback.
    request.log.error({ err: error, clientAddress: request.ip }, 'KBank callback could not be recorded');
  }
  return reply.code(200).type('application/json').send(CALLBACK_ANSWER);
}
