// Where the hosted page's links and forms point. They are absolute paths under PUBLIC_BASE_URL,
// so they stay right behind a reverse proxy that mounts the gateway under a prefix.
import type { PageLang } from './texts.ts';

/**
 * A redirect id is 44 base64url characters (keyed: domain/keyed-ids.ts) or, issued before
 * migration 019, 32; anything else cannot name a payment and answers 404 without a lookup.
 */
export const REDIRECT_ID = /^(?:[A-Za-z0-9_-]{32}|[A-Za-z0-9_-]{44})$/;

/** `value` as a redirect id, or undefined when it cannot be one (then the page answers 404). */
export function redirectIdOf(value: unknown): string | undefined {
  return typeof value === 'string' && REDIRECT_ID.test(value) ? value : undefined;
}

export class PagePaths {
  /** `/transaction/Redirect` under the base URL's path. */
  readonly page: string;

  constructor(publicBaseUrl: string) {
    const basePath = new URL(publicBaseUrl).pathname.replace(/\/+$/, '');
    this.page = `${basePath}/transaction/Redirect`;
  }

  pageHref(redirectId: string, lang?: PageLang): string {
    return `${this.page}?ID=${encodeURIComponent(redirectId)}${lang ? `&lang=${lang}` : ''}`;
  }

  statusHref(redirectId: string): string {
    return `${this.page}/status?ID=${encodeURIComponent(redirectId)}`;
  }

  qrPngHref(redirectId: string): string {
    return `${this.page}/qr.png?ID=${encodeURIComponent(redirectId)}`;
  }
}
