// Double-entry rules (contract §7). A journal entry is a set of postings that sums to zero
// per currency; a payment splits into merchant net, gateway fee and clearing.
import { mulDivHalfEven } from './money.ts';

export type AccountKind = 'merchant_payout' | 'gateway_fee' | 'gateway_clearing';
export type AccountRef = { kind: AccountKind; merchantId: string | null; currency: string };
export type PostingLine = { account: AccountRef; amountMinor: bigint };

export const PPM = 1_000_000n;

/** Deterministic account id: the primary key itself makes each account unique. */
export function accountId(ref: AccountRef): string {
  return `${ref.kind}:${ref.merchantId ?? 'gateway'}:${ref.currency}`;
}

/** Fee on an amount at a rate in parts per million, rounded half-even at 1/10,000. */
export function feeFor(amountMinor: bigint, feeRatePpm: bigint): bigint {
  return mulDivHalfEven(amountMinor, feeRatePpm, PPM);
}

/** SUCCESS: merchant + (amount − fee), fee account + fee, clearing − amount. */
export function paymentPostings(merchantId: string, currency: string, amountMinor: bigint, feeRatePpm: bigint): PostingLine[] {
  const fee = feeFor(amountMinor, feeRatePpm);
  const lines: PostingLine[] = [
    { account: { kind: 'merchant_payout', merchantId, currency }, amountMinor: amountMinor - fee },
    { account: { kind: 'gateway_fee', merchantId: null, currency }, amountMinor: fee },
    { account: { kind: 'gateway_clearing', merchantId: null, currency }, amountMinor: -amountMinor },
  ];
  return assertBalanced(lines.filter((l) => l.amountMinor !== 0n));
}

/** Operator credit (+) or debit (−) of a merchant's payout account, balanced against clearing. */
export function adjustmentPostings(merchantId: string, currency: string, signedAmountMinor: bigint): PostingLine[] {
  return assertBalanced([
    { account: { kind: 'merchant_payout', merchantId, currency }, amountMinor: signedAmountMinor },
    { account: { kind: 'gateway_clearing', merchantId: null, currency }, amountMinor: -signedAmountMinor },
  ]);
}

/** Invariant: every entry sums to zero per currency and has no zero lines. */
export function assertBalanced(lines: PostingLine[]): PostingLine[] {
  const sums = new Map<string, bigint>();
  for (const line of lines) {
    if (line.amountMinor === 0n) throw new Error('ledger invariant: zero posting line');
    sums.set(line.account.currency, (sums.get(line.account.currency) ?? 0n) + line.amountMinor);
  }
  for (const [currency, sum] of sums) {
    if (sum !== 0n) throw new Error(`ledger invariant: entry does not balance in ${currency} (${sum})`);
  }
  return lines;
}
