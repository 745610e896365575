// The server scaffolding the bank simulators share (docs/connectors/kbank-sim.md,
// docs/connectors/scb-sim.md): a request under /__sim goes to the control API, anything else to
// the bank's faithful surface; answers a fault holds back (timeout, hang) and latency waits are
// tracked so that close() ends them; and the bits every handler does (a body over the limit is
// 413, an answer is logged redacted).
import type http from 'node:http';
import type { ControlAnswer } from './control-routes.ts';
import { readBody, send } from './http.ts';
import type { LoggedRequest, RequestLog } from './request-log.ts';
import { parseJsonObject } from './wire-json.ts';

/** The answers a fault holds back and the latency waits under way, all ended by release(). */
export class HeldAnswers {
  readonly #held = new Set<http.ServerResponse>();
  readonly #waits = new Set<NodeJS.Timeout>();

  /** Resolves after `ms` (at once for 0 or less), or never once released. */
  wait(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#waits.delete(timer);
        resolve();
      }, ms);
      this.#waits.add(timer);
    });
  }

  /** Never answers `res`; its connection is dropped on release() unless the client goes first. */
  hold(res: http.ServerResponse): void {
    this.#held.add(res);
    res.on('close', () => this.#held.delete(res));
  }

  release(): void {
    for (const res of this.#held) res.socket?.destroy();
    for (const timer of this.#waits) clearTimeout(timer);
  }
}

/** The request body, or undefined after answering 413 when it is over the limit. */
export async function readBodyOr413(req: http.IncomingMessage, res: http.ServerResponse): Promise<string | undefined> {
  const raw = await readBody(req);
  if (raw === undefined) res.writeHead(413, { connection: 'close' }).end();
  return raw;
}

/** Puts the faithful answer into the request's log entry, its secrets redacted. */
export function logAnswer(
  requestLog: RequestLog,
  entry: LoggedRequest,
  answer: { status: number; body: string; handling: string },
): void {
  entry.handling = answer.handling;
  entry.answer = { status: answer.status, body: requestLog.loggableBody(answer.body, 'application/json') };
}

export type SimHandlers = {
  /** The name the request URL is resolved against ("kbank-sim"). */
  host: string;
  requestLog: RequestLog;
  /** The bank's surface: everything outside /__sim. */
  faithful(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void>;
  /** A /__sim route; `body` is the request's JSON object ({} when empty). */
  control(method: string, path: string, body: Record<string, unknown>): Promise<ControlAnswer>;
  /** A page under /__sim served as it is (SCB's payer page); undefined for the JSON routes. */
  page?(method: string, path: string): { body: string; contentType: string } | undefined;
};

/** The node:http request listener: /__sim to the control API, the rest to the bank; 500 on a throw. */
export function simRequestListener(handlers: SimHandlers): http.RequestListener {
  async function handleControl(req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<void> {
    const raw = await readBodyOr413(req, res);
    if (raw === undefined) return;
    const page = handlers.page?.(req.method ?? '', path);
    if (page !== undefined) {
      send(res, 200, page.body, page.contentType);
      return;
    }
    const body = raw.trim() === '' ? {} : parseJsonObject(raw);
    const answer =
      body === null
        ? { status: 400, body: { error: 'the body must be a JSON object' } }
        : await handlers.control(req.method ?? '', path, body);
    send(res, answer.status, JSON.stringify(handlers.requestLog.redact(answer.body), null, 2));
  }

  return (req, res) => {
    const url = new URL(req.url ?? '/', `http://${handlers.host}`);
    const handled =
      url.pathname === '/__sim' || url.pathname.startsWith('/__sim/')
        ? handleControl(req, res, url.pathname)
        : handlers.faithful(req, res, url);
    handled.catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, JSON.stringify({ error: String(error) }));
      else res.destroy();
    });
  };
}
