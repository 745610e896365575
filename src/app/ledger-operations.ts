// Ledger use cases (docs/ledger.md): operators credit or debit a merchant account with a reason
// and an idempotency key, look at a merchant's accounts and entries, and verify the whole
// ledger; merchants query the balance of their payout account. The CLI is a thin shell over this.
import { GatewayError, invalidField, missingField } from '../domain/errors.ts';
import { uuidv7 } from '../domain/ids.ts';
import { adjustmentPostings, LedgerRefusal, payoutAccount, planPostings, type AccountKind } from '../domain/ledger.ts';
import { CURRENCY_CODE, formatMinor, MINOR_DIGITS, parseDecimal } from '../domain/money.ts';
import { type AccountRecord, type EntryWithPostings } from '../domain/ledger.ts';
import type { MerchantRecord } from '../domain/merchant.ts';
import type { LedgerReads, MerchantStore, Store } from './ports/store.ts';

/**
 * Currencies payments arrive in (THAI_DEBIT is THB only): a merchant may hold money in these besides its payout
 * currency.
 */
export const PAYMENT_CURRENCIES: readonly string[] = ['THB'];
/** Largest single adjustment: 10^12 units keeps every sum far inside 64 bits of 1/10,000. */
export const MAX_ADJUSTMENT_MINOR = 1_000_000_000_000n * 10_000n;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,128}$/;
const MAX_REASON = 500;
export const MAX_SHOW_ENTRIES = 500;

export type AdjustmentRequest = {
  direction: 'credit' | 'debit';
  merchantId: string;
  /** Decimal text, e.g. "100" or "12.5", at most 4 fraction digits; parsed exactly. */
  amount: string;
  currency: string;
  reason: string;
  idempotencyKey: string;
};

export type AdjustmentResult = {
  /** True when this idempotency key had already posted the same request: nothing changed now. */
  replayed: boolean;
  entry: EntryWithPostings;
  amountMinor: bigint;
  currency: string;
  /** The merchant account's balance now (after this or the earlier posting). */
  balanceMinor: bigint;
};

export type MerchantLedger = {
  merchant: MerchantRecord;
  /** One row per currency the merchant holds; the payout-currency account is always listed. */
  accounts: Array<
    Pick<AccountRecord, 'id' | 'kind' | 'currency' | 'balanceMinor' | 'postingCount'> & { isPayoutAccount: boolean }
  >;
  entries: EntryWithPostings[];
};

export type LedgerCheck = {
  ok: boolean;
  unbalancedEntries: Array<{ entryId: string; currency: string; sumMinor: bigint }>;
  malformedEntries: string[];
  balanceMismatches: Array<{ accountId: string; storedMinor: bigint; postedMinor: bigint }>;
  negativePayoutAccounts: string[];
};

export type PayoutBalance = { balanceMinor: bigint; currency: string; maskedcard: string };

export type LedgerOperationsDeps = {
  store: Pick<Store, 'unitOfWork' | 'isUniqueViolation'>;
  ledger: LedgerReads;
  merchants: MerchantStore;
  now: () => number;
};

/** Last four digits of the registered payout card/account (an IBAN's letters are skipped). */
export function maskedPayoutAccount(account: string): string {
  return account.replace(/\D/g, '').slice(-4);
}

/**
 * The balance the merchant API reports: the merchant's account in its payout currency.
 * Money received in other currencies (THB payments for a PHP merchant) sits in the
 * merchant's account of that currency and is not converted (see docs/ledger.md).
 */
export async function payoutBalance(
  ledger: Pick<LedgerReads, 'balance'>,
  merchant: MerchantRecord,
): Promise<PayoutBalance> {
  return {
    balanceMinor: await ledger.balance(payoutAccount(merchant.id, merchant.payoutCurrency)),
    currency: merchant.payoutCurrency,
    maskedcard: maskedPayoutAccount(merchant.payoutAccount),
  };
}

type ValidAdjustment = {
  direction: 'credit' | 'debit';
  merchantId: string;
  amountMinor: bigint;
  currency: string;
  reason: string;
  key: string;
};

export function validateAdjustment(input: AdjustmentRequest): ValidAdjustment {
  if (input.direction !== 'credit' && input.direction !== 'debit')
    throw invalidField('direction', 'it must be credit or debit');
  const merchantId = input.merchantId.trim();
  if (merchantId === '') throw missingField('merchant');
  const parsed = parseDecimal(input.amount.trim());
  if (!parsed || parsed.significantFractionDigits > MINOR_DIGITS) {
    throw invalidField(
      'amount',
      `it must be a decimal number like 100 or 12.5 with at most ${MINOR_DIGITS} fraction digits, no sign or exponent`,
    );
  }
  if (parsed.minor <= 0n) throw invalidField('amount', 'it must be greater than zero');
  if (parsed.minor > MAX_ADJUSTMENT_MINOR)
    throw invalidField('amount', `it must be at most ${formatMinor(MAX_ADJUSTMENT_MINOR, 0)}`);
  const currency = input.currency.trim().toUpperCase();
  if (!CURRENCY_CODE.test(currency)) throw invalidField('currency', 'it must be a three-letter ISO 4217 code');
  const reason = input.reason.trim();
  if (reason === '') throw missingField('reason');
  if (reason.length > MAX_REASON || /[\u0000-\u001f\u007f]/.test(reason))
    throw invalidField('reason', `it must be at most ${MAX_REASON} characters without control characters`);
  const key = input.idempotencyKey;
  if (key === '') throw missingField('idempotency-key');
  if (!IDEMPOTENCY_KEY.test(key))
    throw invalidField('idempotency-key', 'it must be 1 to 128 printable ASCII characters without spaces');
  return { direction: input.direction, merchantId, amountMinor: parsed.minor, currency, reason, key };
}

export class LedgerOperations {
  readonly #deps: LedgerOperationsDeps;
  constructor(deps: LedgerOperationsDeps) {
    this.#deps = deps;
  }

  /**
   * Credits or debits the merchant's account in `currency`, once per idempotency key. The same
   * key with the same request answers the first posting again (replayed); with a different
   * request it is refused. A debit that would make the balance negative is refused and posts
   * nothing — the key stays unused, so the same request can be retried after a top-up.
   */
  async adjust(input: AdjustmentRequest): Promise<AdjustmentResult> {
    const request = validateAdjustment(input);
    const { store, ledger, now } = this.#deps;
    const merchant = await this.#merchant(request.merchantId);
    await this.#assertCurrencyAllowed(merchant, request.currency);
    const account = payoutAccount(merchant.id, request.currency);
    const signed = request.direction === 'credit' ? request.amountMinor : -request.amountMinor;
    try {
      return await store.unitOfWork(async (uow) => {
        const at = now();
        const lines = adjustmentPostings(merchant.id, request.currency, signed);
        // Lock first, then look for the key: a racing twin holding the same lock has committed by now.
        const states = await uow.lockAccounts(
          lines.map((l) => l.account),
          at,
        );
        const earlier = await uow.findEntryByIdempotencyKey(request.key);
        if (earlier) return this.#replay(request, earlier, await uow.balance(account));
        const entry = {
          id: uuidv7(at),
          kind: request.direction,
          merchantId: merchant.id,
          transactionId: null,
          idempotencyKey: request.key,
          reason: request.reason,
          createdAt: at,
        };
        // Refuses an overdraft (LedgerRefusal) before anything is written.
        const planned = planPostings(lines, states);
        await uow.insertEntry(entry, planned);
        const mine = planned.find((p) => p.kind === 'merchant_payout');
        if (!mine || mine.balanceAfterMinor === null) throw new Error('ledger: adjustment without a merchant line');
        return {
          replayed: false,
          entry: { ...entry, postings: planned.map((p) => ({ ...p, entryId: entry.id })) },
          amountMinor: request.amountMinor,
          currency: request.currency,
          balanceMinor: mine.balanceAfterMinor,
        };
      });
    } catch (error) {
      // The same key committed by another process between our lookup and our insert
      // (possible when the twin locked other accounts): answer as a replay or a conflict.
      if (!store.isUniqueViolation(error)) throw error;
      const earlier = await ledger.findEntryByIdempotencyKey(request.key);
      if (!earlier) throw error;
      return this.#replay(request, earlier, await ledger.balance(account));
    }
  }

  #replay(request: ValidAdjustment, earlier: EntryWithPostings, balanceMinor: bigint): AdjustmentResult {
    const line = earlier.postings.find((p) => p.kind === 'merchant_payout');
    const same =
      line !== undefined &&
      earlier.kind === request.direction &&
      earlier.merchantId === request.merchantId &&
      earlier.reason === request.reason &&
      line.currency === request.currency &&
      (line.amountMinor < 0n ? -line.amountMinor : line.amountMinor) === request.amountMinor;
    if (!same) {
      const what = line
        ? `${earlier.kind} of ${formatMinor(line.amountMinor < 0n ? -line.amountMinor : line.amountMinor, 4)} ` +
          `${line.currency} for merchant ${earlier.merchantId}`
        : `entry ${earlier.id}`;
      throw new LedgerRefusal(
        'IDEMPOTENCY_CONFLICT',
        `The idempotency key '${request.key}' was already used for a different request ` +
          `(${what}, reason "${earlier.reason ?? ''}"); nothing was posted. Use a new key for a new request.`,
      );
    }
    return {
      replayed: true,
      entry: earlier,
      amountMinor: request.amountMinor,
      currency: request.currency,
      balanceMinor,
    };
  }

  /** Accounts and the most recent entries (newest first) of one merchant. */
  async show(merchantId: string, options: { limit?: number } = {}): Promise<MerchantLedger> {
    const limit = options.limit ?? 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SHOW_ENTRIES)
      throw invalidField('limit', `it must be a whole number from 1 to ${MAX_SHOW_ENTRIES}`);
    const merchant = await this.#merchant(merchantId);
    const { ledger } = this.#deps;
    const stored = await ledger.accountsOf(merchant.id);
    const accounts: MerchantLedger['accounts'] = stored.map((a) => ({
      id: a.id,
      kind: a.kind,
      currency: a.currency,
      balanceMinor: a.balanceMinor,
      postingCount: a.postingCount,
      isPayoutAccount: a.currency === merchant.payoutCurrency,
    }));
    if (!accounts.some((a) => a.isPayoutAccount)) {
      const kind: AccountKind = 'merchant_payout';
      accounts.unshift({
        id: `${kind}:${merchant.id}:${merchant.payoutCurrency}`,
        kind,
        currency: merchant.payoutCurrency,
        balanceMinor: 0n,
        postingCount: 0n,
        isPayoutAccount: true,
      });
    }
    accounts.sort(
      (a, b) => Number(b.isPayoutAccount) - Number(a.isPayoutAccount) || a.currency.localeCompare(b.currency),
    );
    return { merchant, accounts, entries: await ledger.recentEntries(merchant.id, limit) };
  }

  /** Re-derives every invariant from the stored rows (the database enforces them as they are written). */
  async verify(): Promise<LedgerCheck> {
    const { ledger } = this.#deps;
    const check = {
      unbalancedEntries: await ledger.unbalancedEntries(),
      malformedEntries: await ledger.malformedEntries(),
      balanceMismatches: await ledger.balanceMismatches(),
      negativePayoutAccounts: await ledger.negativePayoutAccounts(),
    };
    const ok = Object.values(check).every((list) => list.length === 0);
    return { ok, ...check };
  }

  async #merchant(id: string): Promise<MerchantRecord> {
    const merchant = await this.#deps.merchants.findById(id);
    if (!merchant) throw new GatewayError('NOT_FOUND', `No merchant with id '${id}'.`);
    return merchant;
  }

  /** Guards against a typo opening an account in a currency the merchant can never be paid out in. */
  async #assertCurrencyAllowed(merchant: MerchantRecord, currency: string): Promise<void> {
    if (currency === merchant.payoutCurrency || PAYMENT_CURRENCIES.includes(currency)) return;
    const held = await this.#deps.ledger.accountsOf(merchant.id);
    if (held.some((a) => a.currency === currency)) return;
    throw invalidField(
      'currency',
      `merchant ${merchant.id} holds no ${currency}; use its payout currency ${merchant.payoutCurrency} ` +
        `or a payment currency (${PAYMENT_CURRENCIES.join(', ')})`,
    );
  }
}
