// The route skeleton both banks' unsigned callbacks share (docs/architecture.md "Connectors"):
// KBank's notify route and SCB's confirmation route. Each lives in its own Fastify scope that keeps
// the raw body (the use case records it as it came) and leaves the API's JSON parser alone; the
// guard (connectors/callback-guard.ts) runs before the body is read, so nobody without the path
// token learns more than an unknown path tells; what passes is handed to the use case, and the
// bank is answered its success reply whatever happened, since the use case only ever acts
// through an inquiry. What each bank is answered and what it is told about the record stay in
// the bank's own route file.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addressAllowList, samePathToken } from './callback-guard.ts';

/** One callback that passed the guard, as the bank's route file reads it. */
export type AcceptedCallback = {
  /** Records the callback and checks the attempt it names; resolves with what it did. */
  receive: () => Promise<string>;
  /** What the bank is answered (HTTP 200), whether or not the callback could be recorded. */
  reply: () => string;
  /** More for the log line (never the body). */
  details?: Record<string, unknown>;
};

export type BankCallbackRoute = {
  /** The path up to the secret segment, e.g. /processor/kbank/notify/. */
  prefix: string;
  /** The largest body read; a bank's callback is well under it. */
  bodyLimit: number;
  /** The secret last segment of the path. */
  pathToken: string;
  /** Addresses or CIDRs the bank may call from; empty: from anywhere. */
  allowCidrs: readonly string[];
  /** How the log names one ("KBank callback"). */
  name: string;
  /** The setting that holds the allow list, named in the warning about a stranger. */
  allowCidrsSetting: string;
  /** The bank's own refusal, answered 403 to an address not in the allow list. */
  forbiddenReply: string;
  accept: (body: Buffer, request: FastifyRequest) => AcceptedCallback;
};

export async function registerBankCallbackRoute(app: FastifyInstance, route: BankCallbackRoute): Promise<void> {
  const expected = Buffer.from(route.pathToken, 'utf8');
  const allowed = addressAllowList(route.allowCidrs);
  // Its own scope: the raw body is kept for the use case, and the API's JSON parser stays as it is.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: route.bodyLimit },
      (_request, body, done) => done(null, body),
    );
    scope.post<{ Params: { token: string } }>(
      `${route.prefix}:token`,
      {
        bodyLimit: route.bodyLimit,
        // Before the body is read: nobody without the token learns more than an unknown path tells.
        onRequest: async (request, reply) => {
          if (!samePathToken(request.params.token, expected)) return reply.callNotFound();
          if (!allowed(request.ip)) {
            request.log.warn(
              { clientAddress: request.ip },
              `${route.name} from an address not in ${route.allowCidrsSetting}`,
            );
            return reply.code(403).type('application/json').send(route.forbiddenReply);
          }
          return undefined;
        },
      },
      (request, reply) => answer(request, reply, route),
    );
  });
}

async function answer(request: FastifyRequest, reply: FastifyReply, route: BankCallbackRoute): Promise<FastifyReply> {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const callback = route.accept(body, request);
  try {
    const outcome = await callback.receive();
    const details = { outcome, ...callback.details, clientAddress: request.ip, bytes: body.length };
    if (outcome === 'checked' || outcome === 'duplicate') request.log.info(details, `${route.name} received`);
    else request.log.warn(details, `${route.name} received: ${outcome}`);
  } catch (error) {
    // Still answered as received: the reconciler finds the payment without the callback.
    request.log.error({ err: error, clientAddress: request.ip }, `${route.name} could not be recorded`);
  }
  return reply.code(200).type('application/json').send(callback.reply());
}
