// Double-entry rules (docs/ledger.md), pure. A journal entry is a set of postings that sums to
// zero per currency. Accounts are per (kind, owner, currency): a merchant holds one payout
// account per currency it has money in; there is no FX anywhere in the ledger.
import { GatewayError } from './errors.ts';
import { formatMinor, mulDivHalfEven } from './money.ts';

export type AccountKind = 'merchant_payout' | 'gateway_fee' | 'gateway_clearing' | 'operator_adjustment';
export type AccountRef = { kind: AccountKind; merchantId: string | null; currency: string };
export type PostingLine = { account: AccountRef; amountMinor: bigint };
export type EntryKind = 'payment' | 'credit' | 'debit' | 'refund';

export const PPM = 1_000_000n;
/** Balances and postings are stored as signed 64-bit integers; nothing may leave that range. */
export const INT64_MAX = 2n ** 63n - 1n;
export const INT64_MIN = -(2n ** 63n);

/**
 * Summed accounts: the gateway's fee and clearing accounts, which every successful payment of a
 * currency posts to. Their postings carry no running balance, so no completion locks or moves a
 * shared row; their balance is the sum of their postings. Every other account keeps a chain
 * (sequence number and running balance on each posting, the balance on the locked account row):
 * a payout balance must be known under a lock to refuse an overdraft. See docs/ledger.md.
 */
export const SUMMED_KINDS: ReadonlySet<AccountKind> = new Set<AccountKind>(['gateway_fee', 'gateway_clearing']);
export const keepsRunningBalance = (kind: AccountKind): boolean => !SUMMED_KINDS.has(kind);

/** Deterministic account id: the primary key itself makes each account unique. */
export function accountId(ref: AccountRef): string {
  return `${ref.kind}:${ref.merchantId ?? 'gateway'}:${ref.currency}`;
}

export const payoutAccount = (merchantId: string, currency: string): AccountRef => ({
  kind: 'merchant_payout',
  merchantId,
  currency,
});

/** Fee on an amount at a rate in parts per million, rounded half-even at 1/10,000. */
export function feeFor(amountMinor: bigint, feeRatePpm: bigint): bigint {
  return mulDivHalfEven(amountMinor, feeRatePpm, PPM);
}

/**
 * SUCCESS of a payment: merchant payout account IN THE PAYMENT CURRENCY + (amount − fee),
 * gateway fee account + fee, clearing − amount (the gateway is owed `amount` by the payer's
 * bank until settlement). Zero lines (fee rate 0) are left out.
 */
export function paymentPostings(
  merchantId: string,
  currency: string,
  amountMinor: bigint,
  feeRatePpm: bigint,
): PostingLine[] {
  if (amountMinor <= 0n) throw new Error(`ledger: a payment amount must be positive (${amountMinor})`);
  const fee = feeFor(amountMinor, feeRatePpm);
  const lines: PostingLine[] = [
    { account: payoutAccount(merchantId, currency), amountMinor: amountMinor - fee },
    { account: { kind: 'gateway_fee', merchantId: null, currency }, amountMinor: fee },
    { account: { kind: 'gateway_clearing', merchantId: null, currency }, amountMinor: -amountMinor },
  ];
  return assertBalanced(lines.filter((l) => l.amountMinor !== 0n));
}

/**
 * Operator credit (+) or debit (−) of a merchant's payout account. The other side is the
 * operator adjustment account of that currency, kept apart from clearing so that clearing
 * always equals −(successful payments) and can be reconciled against bank settlements.
 */
export function adjustmentPostings(merchantId: string, currency: string, signedAmountMinor: bigint): PostingLine[] {
  return assertBalanced([
    { account: payoutAccount(merchantId, currency), amountMinor: signedAmountMinor },
    { account: { kind: 'operator_adjustment', merchantId: null, currency }, amountMinor: -signedAmountMinor },
  ]);
}

/**
 * Invariant: an entry has at least two lines, none zero, all in their account's currency, summing to zero per
 * currency.
 */
export function assertBalanced(lines: PostingLine[]): PostingLine[] {
  if (lines.length < 2) throw new Error('ledger invariant: an entry needs at least two postings');
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

/** An account as read (and locked) just before posting to it. */
export type AccountState = {
  id: string;
  kind: AccountKind;
  currency: string;
  balanceMinor: bigint;
  postingCount: bigint;
};

/**
 * A posting ready to insert. On an account that keeps a running balance it continues the
 * account's chain (sequence number and balance after it); on a summed account both are null.
 */
export type PlannedPosting = {
  lineNo: number;
  accountId: string;
  kind: AccountKind;
  currency: string;
  amountMinor: bigint;
  accountSeq: bigint | null;
  balanceAfterMinor: bigint | null;
};

/** A journal entry: the header of a balanced set of postings (payment, refund, credit, debit). */
export type JournalEntry = {
  id: string;
  kind: EntryKind;
  merchantId: string;
  transactionId: string | null;
  idempotencyKey: string | null;
  reason: string | null;
  createdAt: number;
};

/** A stored posting: a planned posting of an entry. */
export type PostingRecord = PlannedPosting & { entryId: string };

export type EntryWithPostings = JournalEntry & { postings: PostingRecord[] };

/** An account with its owner; a summed account's balance includes its unchained postings. */
export type AccountRecord = AccountState & { merchantId: string | null; createdAt: number };

/** Why the ledger refused an operator request; the CLI prints the message, the tests read `reason`. */
export type LedgerRefusalReason = 'OVERDRAFT' | 'IDEMPOTENCY_CONFLICT';

export class LedgerRefusal extends GatewayError {
  readonly reason: LedgerRefusalReason;
  constructor(reason: LedgerRefusalReason, message: string) {
    super(reason === 'OVERDRAFT' ? 'INVALID_STATE' : 'INVALID_FIELD', message);
    this.name = 'LedgerRefusal';
    this.reason = reason;
  }
}

/**
 * Applies the lines, in order, to the accounts' current states. Refuses (changing nothing)
 * when a merchant payout balance would go below zero; throws when a balance would leave the
 * 64-bit range. `states` is needed only for accounts that keep a running balance (lines on
 * summed accounts get no chain) and is not modified.
 */
export function planPostings(lines: PostingLine[], states: ReadonlyMap<string, AccountState>): PlannedPosting[] {
  assertBalanced(lines);
  const running = new Map<string, { balance: bigint; count: bigint }>();
  return lines.map((line, index) => {
    const id = accountId(line.account);
    if (!keepsRunningBalance(line.account.kind)) {
      return {
        lineNo: index + 1,
        accountId: id,
        kind: line.account.kind,
        currency: line.account.currency,
        amountMinor: line.amountMinor,
        accountSeq: null,
        balanceAfterMinor: null,
      };
    }
    const state = states.get(id);
    if (!state) throw new Error(`ledger: account ${id} was not locked before posting`);
    if (state.currency !== line.account.currency || state.kind !== line.account.kind)
      throw new Error(`ledger: account ${id} does not match its line`);
    const before = running.get(id) ?? { balance: state.balanceMinor, count: state.postingCount };
    const after = { balance: before.balance + line.amountMinor, count: before.count + 1n };
    if (after.balance > INT64_MAX || after.balance < INT64_MIN)
      throw new Error(`ledger: balance of ${id} would leave the 64-bit range`);
    if (state.kind === 'merchant_payout' && after.balance < 0n) {
      throw new LedgerRefusal(
        'OVERDRAFT',
        `A debit of ${formatMinor(-line.amountMinor, 4)} ${state.currency} ` +
          `would make the ${state.currency} payout balance negative ` +
          `(available ${formatMinor(before.balance, 4)} ${state.currency}); nothing was posted.`,
      );
    }
    running.set(id, after);
    return {
      lineNo: index + 1,
      accountId: id,
      kind: state.kind,
      currency: state.currency,
      amountMinor: line.amountMinor,
      accountSeq: after.count,
      balanceAfterMinor: after.balance,
    };
  });
}

/**
 * A refund of a SUCCESS payment: merchant payout account − amount, `counterpart` + amount —
 * clearing for a refund at the processor (the gateway owes the payer's bank the money it sends
 * back), the operator adjustment account for a bank transfer the gateway paid (domain/refund.ts
 * refundCounterpart). The fee of the payment is NOT returned: the merchant bears the whole refund,
 * the fee account is untouched (docs/ledger.md).
 */
export function refundPostings(
  merchantId: string,
  currency: string,
  amountMinor: bigint,
  counterpart: 'gateway_clearing' | 'operator_adjustment',
): PostingLine[] {
  if (amountMinor <= 0n) throw new Error(`ledger: a refund amount must be positive (${amountMinor})`);
  return assertBalanced([
    { account: payoutAccount(merchantId, currency), amountMinor: -amountMinor },
    { account: { kind: counterpart, merchantId: null, currency }, amountMinor },
  ]);
}
