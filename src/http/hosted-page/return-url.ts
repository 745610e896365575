// Where the customer goes back to after a final state (docs/hosted-page.md "Back to the
// merchant"): the merchant's `returnUrl` with the result appended to its EXISTING query, then the
// signature over it (`ts`, `signature`). The merchant's own query is kept byte for byte
// (re-serialising it through URLSearchParams could re-encode it), and a fragment stays at the end
// where browsers expect it.
import { resultParameters, type FinalResult } from '../../domain/return-parameters.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';

export { SUCCESS_DESCRIPTION, type FinalResult } from '../../domain/return-parameters.ts';

/**
 * Where the customer goes after a final state: `returnUrl_on_failure` for a failed, cancelled or
 * expired payment when the merchant gave one, otherwise `returnUrl`; the result is appended either way.
 * `signed` is appended after the result as it is (see `signedTail`): a page rendered once for the
 * cache puts a marker there and each response its own fresh signature.
 */
export function customerReturnUrl(
  t: FinalResult & Pick<TransactionRecord, 'returnUrl' | 'returnUrlOnFailure'>,
  signed = '',
): string {
  const base = t.status === 'FAILED' && t.returnUrlOnFailure ? t.returnUrlOnFailure : t.returnUrl;
  return returnUrlFor(base, t, signed);
}

/** `&ts=…&signature=…` from the signature parameters (empty when there are none). */
export function signedTail(parameters: ReadonlyArray<readonly [string, string]>): string {
  return parameters.map(([name, value]) => `&${name}=${encodeURIComponent(value)}`).join('');
}

export function returnUrlFor(returnUrl: string, t: FinalResult, signed = ''): string {
  // WHATWG serialisation only percent-encodes what a Location header cannot carry (spaces,
  // non-ASCII); existing escapes and '+' in the merchant's query are left as they are.
  const href = new URL(returnUrl).href;
  const hashAt = href.indexOf('#');
  const base = hashAt === -1 ? href : href.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : href.slice(hashAt);
  const added = Object.entries(resultParameters(t))
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}${added}${signed}${fragment}`;
}
