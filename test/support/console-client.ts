// A tiny browser for the console over app.inject: keeps cookies, reads the CSRF field out of
// the last page, posts forms. Lets the HTTP tests drive the console like a person would,
// without a real browser (the Chromium tests do that).
import type { FastifyInstance } from 'fastify';
import { createConsoleServices, type ConsoleServices } from '../../src/app/console/console-services.ts';
import type { TestGateway } from './test-gateway.ts';

export type Page = { status: number; headers: Record<string, unknown>; body: string; location: string | undefined };

export class ConsoleClient {
  readonly cookies = new Map<string, string>();
  readonly #app: FastifyInstance;
  readonly headers: Record<string, string>;
  last: Page | undefined;

  constructor(app: FastifyInstance, headers: Record<string, string> = {}) {
    this.#app = app;
    this.headers = headers;
  }

  #cookieHeader(): Record<string, string> {
    return this.cookies.size === 0 ? {} : { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  }

  #store(setCookie: unknown): void {
    const list = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
    for (const line of list as string[]) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (/Max-Age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<Page> {
    const r = await this.#app.inject({
      method: 'GET',
      url,
      headers: { ...this.headers, ...this.#cookieHeader(), ...headers },
    });
    this.#store(r.headers['set-cookie']);
    this.last = {
      status: r.statusCode,
      headers: r.headers,
      body: r.body,
      location: r.headers.location as string | undefined,
    };
    return this.last;
  }

  async post(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
    const r = await this.#app.inject({
      method: 'POST',
      url,
      headers: {
        ...this.headers,
        'content-type': 'application/x-www-form-urlencoded',
        ...this.#cookieHeader(),
        ...headers,
      },
      payload: new URLSearchParams(fields).toString(),
    });
    this.#store(r.headers['set-cookie']);
    this.last = {
      status: r.statusCode,
      headers: r.headers,
      body: r.body,
      location: r.headers.location as string | undefined,
    };
    return this.last;
  }

  /** The CSRF token of the last page's (first) form. */
  csrf(): string {
    const match = /name="csrf" value="([^"]+)"/.exec(this.last?.body ?? '');
    if (!match) throw new Error(`no CSRF field on the last page:\n${this.last?.body.slice(0, 500)}`);
    return match[1]!;
  }

  /**
   * A refund form posted as a person would: the first post shows the confirmation page, whose
   * form is then posted as it stands. Returns both answers.
   */
  async refund(transactionId: string, fields: Record<string, string>): Promise<{ confirm: Page; done: Page }> {
    const url = `/console/payments/${transactionId}/refund`;
    const confirm = await this.post(url, fields);
    if (confirm.status !== 200) return { confirm, done: confirm };
    return { confirm, done: await this.post(url, confirmationFields(confirm.body)) };
  }

  /** Opens the login form and logs in; returns the answer to the POST. */
  async login(role: 'operator' | 'merchant', username: string, password: string, totp = ''): Promise<Page> {
    await this.get('/console/login');
    return this.post('/console/login', { csrf: this.csrf(), role, username, password, totp, next: '' });
  }
}

export function consoleOf(gw: TestGateway): ConsoleServices {
  return createConsoleServices(gw.config, gw.services.store, gw.services.key, () => gw.clock.now);
}

export const OPERATOR_PASSWORD = 'operator password 1';

/** The hidden fields of a refund confirmation page's form (what its button posts). */
export function confirmationFields(body: string): Record<string, string> {
  const form = body.slice(body.indexOf('id="confirm-refund"'));
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[m[1]!] = m[2]!
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  }
  return fields;
}
