// Where the customer goes back to after a final state (docs/hosted-page.md "Back to the
// merchant"): the merchant's `returnUrl` with the result appended to its EXISTING query. The merchant's own query is
// kept byte for byte (re-serialising it through URLSearchParams could re-encode it), and a
// fragment stays at the end where browsers expect it.
import { RESPONSE_CODE, RESULT_TEXT } from '../../domain/lifecycle.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';

export const SUCCESS_DESCRIPTION = 'The payment was captured.';

export type FinalResult = Pick<TransactionRecord, 'status' | 'trackid' | 'id' | 'errorText'>;

/**
 * Where the customer goes after a final state: `returnUrl_on_failure` for a failed, cancelled or
 * expired payment when the merchant gave one, otherwise `returnUrl`; the result is appended either way.
 */
export function customerReturnUrl(
  t: FinalResult & Pick<TransactionRecord, 'returnUrl' | 'returnUrlOnFailure'>,
): string {
  const base = t.status === 'FAILED' && t.returnUrlOnFailure ? t.returnUrlOnFailure : t.returnUrl;
  return returnUrlFor(base, t);
}

export function resultParameters(t: FinalResult): Array<[string, string]> {
  if (t.status === 'PROCESSING') throw new Error('a PROCESSING transaction has no result to return');
  return [
    ['result', RESULT_TEXT[t.status]],
    ['responsecode', RESPONSE_CODE[t.status]],
    ['trackid', t.trackid],
    ['transactionid', t.id],
    ['responsedescription', t.status === 'SUCCESS' ? SUCCESS_DESCRIPTION : (t.errorText ?? RESULT_TEXT.FAILED)],
  ];
}

export function returnUrlFor(returnUrl: string, t: FinalResult): string {
  // WHATWG serialisation only percent-encodes what a Location header cannot carry (spaces,
  // non-ASCII); existing escapes and '+' in the merchant's query are left as they are.
  const href = new URL(returnUrl).href;
  const hashAt = href.indexOf('#');
  const base = hashAt === -1 ? href : href.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : href.slice(hashAt);
  const added = resultParameters(t)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}${added}${fragment}`;
}
