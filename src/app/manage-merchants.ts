// Operator use cases for merchants (the CLI is a thin shell over these).
import { generatePassword, hashPassword, type SecretKey } from '../domain/credentials.ts';
import { GatewayError, invalidField } from '../domain/errors.ts';
import { CURRENCY_CODE } from '../domain/money.ts';
import { openSecret, sealSecret } from '../domain/secret-box.ts';
import { generateWebhookSecret } from '../domain/webhook-signature.ts';
import { randomToken } from '../domain/ids.ts';
import type { ConsoleAccountStore } from './ports/console.ts';
import type { MerchantChanges, MerchantStore } from './ports/store.ts';
import type { MerchantRecord } from '../domain/merchant.ts';
import { PAYER_MISMATCH_POLICIES, isPayerMismatchPolicy, type PayerMismatchPolicy } from '../domain/payer-check.ts';

export type NewMerchant = {
  name: string;
  payoutCurrency: string;
  payoutAccount: string;
  id?: string;
  /** Fee as a decimal fraction, e.g. "0.025" for 2.5 %; up to 6 decimals. */
  feeRate?: string;
  /** What a mismatched payer check does: `record` (the default) or `hold` (domain/payer-check.ts). */
  payerMismatch?: string;
};

export type IssuedCredentials = { merchantid: string; password: string; webhook_secret: string };

const MERCHANT_ID = /^[A-Za-z0-9_-]{3,64}$/;

/** "0.025" → 25000 parts per million, exactly; undefined when not a fraction in [0, 1). */
export function parseFeeRate(text: string): bigint | undefined {
  const match = /^(0|1)(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!match) return undefined;
  const ppm = BigInt(match[1] ?? '0') * 1_000_000n + BigInt((match[2] ?? '').padEnd(6, '0'));
  return ppm < 1_000_000n ? ppm : undefined;
}

/** `record` or `hold`, or INVALID_FIELD naming `payer-mismatch`. */
export function payerMismatchPolicy(text: string): PayerMismatchPolicy {
  const policy = text.trim().toLowerCase();
  if (!isPayerMismatchPolicy(policy))
    throw invalidField('payer-mismatch', `it must be one of ${PAYER_MISMATCH_POLICIES.join(', ')}`);
  return policy;
}

export class ManageMerchants {
  readonly #repo: MerchantStore;
  readonly #consoleSessions: Pick<ConsoleAccountStore, 'deleteSessionsOf'>;
  readonly #key: SecretKey;
  readonly #now: () => number;
  readonly #webhookOverlapMs: number;

  constructor(
    repo: MerchantStore,
    consoleSessions: Pick<ConsoleAccountStore, 'deleteSessionsOf'>,
    key: SecretKey,
    webhookOverlapMs: number,
    now: () => number = Date.now,
  ) {
    this.#repo = repo;
    this.#consoleSessions = consoleSessions;
    this.#key = key;
    this.#webhookOverlapMs = webhookOverlapMs;
    this.#now = now;
  }

  async create(input: NewMerchant): Promise<IssuedCredentials> {
    const name = input.name.trim();
    if (name === '' || name.length > 140) throw invalidField('name', 'it must be 1 to 140 characters');
    const currency = input.payoutCurrency.trim().toUpperCase();
    if (!CURRENCY_CODE.test(currency)) throw invalidField('payout-currency', 'it must be a three-letter ISO 4217 code');
    const account = input.payoutAccount.replace(/[\s-]/g, '');
    if (!/^\d{4,34}$/.test(account) && !/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(account)) {
      throw invalidField('payout-account', 'it must be 4 to 34 digits (card or account number) or an IBAN');
    }
    const id = input.id ?? `M${randomToken(9).replace(/[-_]/g, 'x')}`;
    if (!MERCHANT_ID.test(id)) throw invalidField('id', 'it must be 3 to 64 letters, digits, _ or -');
    const feeRatePpm = input.feeRate === undefined ? 0n : parseFeeRate(input.feeRate);
    if (feeRatePpm === undefined)
      throw invalidField(
        'fee-rate',
        'it must be a decimal fraction from 0 up to (not including) 1 with at most 6 decimals, e.g. 0.025',
      );

    const payerMismatch = payerMismatchPolicy(input.payerMismatch ?? 'record');

    const password = generatePassword();
    const webhookSecret = generateWebhookSecret();
    const now = this.#now();
    const record: MerchantRecord = {
      id,
      name,
      passwordHash: hashPassword(this.#key, password),
      webhookSecretSealed: sealSecret(this.#key, webhookSecret),
      previousWebhookSecretSealed: null,
      previousWebhookSecretExpiresAt: null,
      payoutCurrency: currency,
      payoutAccount: account,
      feeRatePpm,
      status: 'active',
      payerMismatch,
      createdAt: now,
      updatedAt: now,
    };
    if (!(await this.#repo.insert(record))) {
      throw new GatewayError('INVALID_FIELD', `A merchant with id '${id}' already exists.`);
    }
    return { merchantid: id, password, webhook_secret: webhookSecret };
  }

  async rotatePassword(id: string): Promise<{ merchantid: string; password: string }> {
    const password = generatePassword();
    await this.#update(id, { passwordHash: hashPassword(this.#key, password) });
    return { merchantid: id, password };
  }

  /**
   * The old secret keeps signing alongside the new one for the overlap window (Standard Webhooks
   * rotation). A current secret that this key cannot open (sealed under another key) is dropped
   * instead: it could never sign, and keeping it would block every notification.
   */
  async rotateWebhookSecret(
    id: string,
  ): Promise<{ merchantid: string; webhook_secret: string; previous_valid_until: string | null }> {
    const merchant = await this.#require(id);
    const secret = generateWebhookSecret();
    const keepPrevious = this.#canOpen(merchant.webhookSecretSealed);
    const until = keepPrevious ? this.#now() + this.#webhookOverlapMs : null;
    await this.#update(id, {
      webhookSecretSealed: sealSecret(this.#key, secret),
      previousWebhookSecretSealed: keepPrevious ? merchant.webhookSecretSealed : null,
      previousWebhookSecretExpiresAt: until,
    });
    return {
      merchantid: id,
      webhook_secret: secret,
      previous_valid_until: until === null ? null : new Date(until).toISOString(),
    };
  }

  #canOpen(sealed: string): boolean {
    try {
      openSecret(this.#key, sealed);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Disabling ends the merchant's console sessions (after the status is written, so no login
   * slips in between): whoever disables it — the CLI or the console — and a later enable does
   * not bring them back (docs/console.md "Roles and accounts").
   */
  async setStatus(id: string, status: 'active' | 'disabled'): Promise<void> {
    await this.#update(id, { status });
    if (status === 'disabled') await this.#consoleSessions.deleteSessionsOf('merchant', id);
  }

  /** What a mismatched payer check does to the merchant's next payments (docs/operations.md "Payer check"). */
  async setPayerMismatch(id: string, policy: string): Promise<PayerMismatchPolicy> {
    const payerMismatch = payerMismatchPolicy(policy);
    await this.#update(id, { payerMismatch });
    return payerMismatch;
  }

  list(): Promise<MerchantRecord[]> {
    return this.#repo.list();
  }

  async #require(id: string): Promise<MerchantRecord> {
    const merchant = await this.#repo.findById(id);
    if (!merchant) throw new GatewayError('NOT_FOUND', `No merchant with id '${id}'.`);
    return merchant;
  }

  async #update(id: string, patch: MerchantChanges): Promise<void> {
    if (!(await this.#repo.update(id, patch, this.#now()))) {
      throw new GatewayError('NOT_FOUND', `No merchant with id '${id}'.`);
    }
  }
}
