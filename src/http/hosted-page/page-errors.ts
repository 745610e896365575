// Error answers of the hosted page's routes: a friendly HTML page with the page headers,
// never JSON or a stack trace. The edge (http/edge/fastify-edge.ts) sends every error of a route
// whose errorShape is 'page' through here; the status comes from the one table in
// http/edge/error-status.ts.
import type { FastifyReply } from 'fastify';
import type { GatewayError } from '../../domain/errors.ts';
import { httpStatusOf } from '../edge/error-status.ts';
import { newNonce, setPageHeaders } from './security.ts';
import { messagePage, type MessageKind } from './templates.ts';
import type { PageLang } from './texts.ts';

export function sendPageMessage(
  reply: FastifyReply,
  status: number,
  kind: MessageKind,
  lang?: PageLang,
  backHref?: string,
): FastifyReply {
  const nonce = newNonce();
  setPageHeaders(reply, nonce);
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(messagePage(kind, nonce, lang, backHref));
}

export function sendPageError(error: GatewayError, reply: FastifyReply): FastifyReply {
  const status = httpStatusOf(error);
  const kind: MessageKind = status === 404 ? 'notFound' : status === 403 ? 'forbidden' : 'error';
  return sendPageMessage(reply, status, kind);
}
