// The hosted page as a browser drives it, through app.inject: load the page (CSRF cookie and
// token), post the confirm/cancel form. Shared by the hosted-page and return-URL tests.
import assert from 'node:assert/strict';
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';

export type Page = { status: number; headers: OutgoingHttpHeaders; body: string };

export async function get(
  gw: { app: FastifyInstance },
  url: string,
  headers: Record<string, string> = {},
): Promise<Page> {
  const r = await gw.app.inject({ method: 'GET', url, headers });
  return { status: r.statusCode, headers: r.headers, body: r.body };
}

/** Cookie + token as the browser holds them after loading the page. */
export function formSecrets(page: Page): { cookie: string; csrf: string } {
  const setCookie = String(page.headers['set-cookie']);
  const cookie = /^(gw_csrf=[^;]+)/.exec(setCookie)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
  assert.ok(cookie && csrf, 'the page sets a CSRF cookie and embeds a token');
  return { cookie, csrf };
}

export async function postForm(
  gw: { app: FastifyInstance },
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Page> {
  const r = await gw.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
  return { status: r.statusCode, headers: r.headers, body: r.body };
}

/** Loads the page of `redirectId` and presses confirm or cancel; the answer (a 303) is returned. */
export async function pressButton(
  gw: { app: FastifyInstance },
  redirectId: string,
  button: 'confirm' | 'cancel',
): Promise<Page> {
  const { cookie, csrf } = formSecrets(await get(gw, `/transaction/Redirect?ID=${redirectId}`));
  return postForm(gw, `/transaction/Redirect/${button}`, { ID: redirectId, csrf }, { cookie });
}
