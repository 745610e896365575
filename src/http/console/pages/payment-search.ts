// The payments list's search form → a PaymentSearch (docs/console.md "Pages"). One free-text
// box: a UUID is a transactionid, text with an @ an e-mail, anything else a trackid (each exact,
// each index-backed); dates are calendar days in Thailand's time. Every value is checked for its
// range here, so an out-of-range one is a 400 naming the field, never an error from the store.
import type { PaymentSearch } from '../../../app/ports/console.ts';
import type { TransactionStatus } from '../../../domain/lifecycle.ts';
import { INT64_MAX } from '../../../domain/ledger.ts';
import { parseDecimal } from '../../../domain/money.ts';
import { bangkokDayStart } from '../../../domain/bangkok-time.ts';

export const PAGE_SIZE = 50;
export const STATES: readonly TransactionStatus[] = ['PROCESSING', 'SUCCESS', 'FAILED'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CURSOR = /^(\d{1,16})\.([0-9a-f-]{36})$/i;

type Query = Record<string, unknown>;

/** The form as typed (shown back in the form), the query it asks for, and the fields it got wrong. */
export type ParsedSearch = { search: PaymentSearch; form: Record<string, string>; problems: string[] };

export function parseSearch(query: Query, merchantScope: string | undefined): ParsedSearch {
  const field = (name: string, max: number) =>
    typeof query[name] === 'string' ? (query[name] as string).trim().slice(0, max) : '';
  const form = {
    q: field('q', 254),
    amount: field('amount', 32),
    state: field('state', 16),
    from: field('from', 10),
    to: field('to', 10),
    merchant: field('merchant', 64),
  };
  const problems: string[] = [];
  const search: PaymentSearch = { limit: PAGE_SIZE + 1 };
  if (merchantScope !== undefined) search.merchantId = merchantScope;
  else if (form.merchant !== '') search.merchantId = form.merchant;
  if (form.q !== '') {
    if (UUID.test(form.q)) search.transactionId = form.q.toLowerCase();
    else if (form.q.includes('@')) search.email = form.q;
    else search.trackid = form.q;
  }
  if (form.amount !== '') {
    const parsed = parseDecimal(form.amount.replace(/,/g, ''));
    // Above a 64-bit amount no payment can exist, and the store could not even bind it.
    if (!parsed || parsed.minor <= 0n || parsed.minor > INT64_MAX || parsed.significantFractionDigits > 2)
      problems.push('amount');
    else search.amountMinor = parsed.minor;
  }
  if (form.state !== '') {
    if (STATES.includes(form.state as TransactionStatus)) search.status = form.state as TransactionStatus;
    else problems.push('state');
  }
  if (form.from !== '') {
    const from = bangkokDayStart(form.from);
    if (from === undefined) problems.push('from');
    else search.from = from;
  }
  if (form.to !== '') {
    const to = bangkokDayStart(form.to);
    if (to === undefined) problems.push('to');
    else search.to = to + 86_400_000;
  }
  const cursor = typeof query.before === 'string' ? CURSOR.exec(query.before) : null;
  if (cursor) search.before = { createdAt: Number(cursor[1]), id: cursor[2]!.toLowerCase() };
  return { search, form, problems };
}
