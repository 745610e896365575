// The payer check (docs/api.md "Payer check"): does the account the processor says paid a
// THAI_DEBIT payment agree with the payer the merchant named at initiation? Pure: the named payer
// (payer_account_no, payer_bank_code as its Bank of Thailand code) and the reported one in, a
// verdict out. Names are never compared: banks transliterate them, so they prove nothing.
//
// The rule:
//   - no reported payer, no reported account, or fewer than MIN_VISIBLE_DIGITS digits visible in
//     it → `unknown` (nothing to compare);
//   - otherwise separators (spaces, dashes, dots) are dropped, x/X/* are hidden digits, and the
//     reported account is right-aligned with ours: `matched` only when the reported bank code is
//     ours, the lengths agree, and every visible reported digit equals ours at the same place;
//     anything else is `mismatched` — a missing reported bank code too: the same digits at an
//     unknown bank do not show that the named account paid, and a processor that sent an account
//     can say its bank.

export const PAYER_CHECKS = ['matched', 'mismatched', 'unknown'] as const;
export type PayerCheck = (typeof PAYER_CHECKS)[number];

/** What a merchant wants done with a `mismatched` payment (merchants.payer_mismatch). */
export const PAYER_MISMATCH_POLICIES = ['record', 'hold'] as const;
export type PayerMismatchPolicy = (typeof PAYER_MISMATCH_POLICIES)[number];

export function isPayerMismatchPolicy(value: unknown): value is PayerMismatchPolicy {
  return (PAYER_MISMATCH_POLICIES as readonly unknown[]).includes(value);
}

export function isPayerCheck(value: unknown): value is PayerCheck {
  return (PAYER_CHECKS as readonly unknown[]).includes(value);
}

/** Fewer visible digits than this say nothing about which account paid. */
export const MIN_VISIBLE_DIGITS = 4;

/** The payer as the merchant named it at initiation. */
export type NamedPayer = { accountNo: string; bankCode: string };
/** The payer as a processor reports it (app/ports/processor.ts ReportedPayer). */
export type ReportedAccount = { bankCode: string | null; accountNumber: string | null } | null;

export type PayerComparison = {
  verdict: PayerCheck;
  /**
   * For a `mismatched` verdict, what differs, in words an operator reads, with no full account
   * number: bank codes, lengths, and the places (counted from the right) of the differing digits.
   */
  differences: string[];
};

const SEPARATORS = /[\s.-]/g;
const HIDDEN = /[xX*]/;

export function comparePayer(named: NamedPayer, reported: ReportedAccount): PayerComparison {
  const account = reported?.accountNumber?.replace(SEPARATORS, '') ?? '';
  const visible = [...account].filter((c) => /\d/.test(c)).length;
  if (!reported || account === '' || visible < MIN_VISIBLE_DIGITS) return { verdict: 'unknown', differences: [] };
  const ours = named.accountNo.replace(SEPARATORS, '');
  const differences: string[] = [];
  const bank = reported.bankCode?.trim() || null;
  if (bank === null) differences.push(`no bank reported (named ${named.bankCode})`);
  else if (bank !== named.bankCode) differences.push(`bank ${bank} reported, ${named.bankCode} named`);
  if (account.length !== ours.length)
    differences.push(`the reported account has ${account.length} places, the named one ${ours.length}`);
  const places: number[] = [];
  for (let fromRight = 1; fromRight <= account.length; fromRight++) {
    const theirs = account[account.length - fromRight]!;
    if (HIDDEN.test(theirs)) continue;
    // Anything else that is not a digit cannot be any digit of ours.
    if (theirs !== ours[ours.length - fromRight]) places.push(fromRight);
  }
  if (places.length > 0) {
    const one = places.length === 1;
    differences.push(
      `${places.length} visible digit${one ? ' differs' : 's differ'} at place${one ? '' : 's'} ` +
        `${places.join(', ')} from the right ` +
        `(reported ${maskAccount(account)}, named ${maskAccount(ours)})`,
    );
  }
  return { verdict: differences.length === 0 ? 'matched' : 'mismatched', differences };
}

/** An account as operators may see it: every place but the last four hidden ("xxxxxx1234"). */
export function maskAccount(account: string): string {
  const kept = Math.min(4, account.length);
  return 'x'.repeat(account.length - kept) + account.slice(account.length - kept).replace(/[X*]/g, 'x');
}
