// Bounded in-flight work (TIGER_STYLE: a limit on everything). Past `maxInFlight` requests
// being worked on, a new one is answered 503 + Retry-After at once instead of queueing behind
// the others: under overload, accepted requests keep their latency, memory stays bounded, and
// clients (or the load balancer) retry elsewhere. A request counts from the end of its headers
// until its response is finished or the client goes away (a slow body holds its slot; the
// request timeout bounds that). Liveness, readiness and metrics are never shed, so probes keep
// answering while the gateway sheds.
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../domain/errors.ts';

const NEVER_SHED = new Set(['/healthz', '/readyz', '/metrics']);

export type InFlight = { readonly current: number; readonly shed: number };

export function registerLoadShedding(app: FastifyInstance, maxInFlight: number, onShed?: () => void): InFlight {
  const state = { current: 0, shed: 0 };
  app.addHook('onRequest', async (request, reply) => {
    if (NEVER_SHED.has(request.url)) return;
    if (state.current >= maxInFlight) {
      state.shed += 1;
      onShed?.();
      throw new GatewayError('SERVICE_UNAVAILABLE', 'The gateway is at capacity; retry shortly.');
    }
    state.current += 1;
    // 'close' fires exactly once per response, whether it finished or the client went away.
    reply.raw.once('close', () => {
      state.current -= 1;
    });
  });
  return state;
}
