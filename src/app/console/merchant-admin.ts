// The console's merchants page (operators only, docs/console.md "Pages"): the CLI's use cases
// (ManageMerchants, ConsoleAccounts), then the merchant directory reloaded so this instance
// serves the change at once (others within MERCHANT_REFRESH), then an audit entry. New secrets
// are returned for the one answer that shows them; the audit entry never holds them.
import type { MerchantRecord } from '../../domain/merchant.ts';
import type { PayerMismatchPolicy } from '../../domain/payer-check.ts';
import {
  payerMismatchPolicy,
  type IssuedCredentials,
  type ManageMerchants,
  type NewMerchant,
} from '../manage-merchants.ts';
import type { MerchantDirectory } from '../merchant-directory.ts';
import type { ConsoleAccountStore } from '../ports/console.ts';
import type { ConsoleAccounts } from './console-accounts.ts';
import { auditActorOf, type ConsoleActor, type ConsoleAudit } from './console-audit.ts';

export type ConsoleMerchantAdminDeps = {
  manage: ManageMerchants;
  directory: Pick<MerchantDirectory, 'refresh'>;
  accounts: Pick<ConsoleAccounts, 'issueMerchantPassword'>;
  consoleAccounts: Pick<ConsoleAccountStore, 'merchantsWithConsolePassword'>;
  audit: ConsoleAudit;
};

export class ConsoleMerchantAdmin {
  readonly #deps: ConsoleMerchantAdminDeps;
  constructor(deps: ConsoleMerchantAdminDeps) {
    this.#deps = deps;
  }

  /** Every merchant, and which of them have a console password. */
  async list(): Promise<{ merchants: MerchantRecord[]; withConsole: Set<string> }> {
    const [merchants, withConsole] = await Promise.all([
      this.#deps.manage.list(),
      this.#deps.consoleAccounts.merchantsWithConsolePassword(),
    ]);
    return { merchants, withConsole };
  }

  async create(input: NewMerchant, by: ConsoleActor): Promise<IssuedCredentials> {
    const issued = await this.#deps.manage.create(input);
    await this.#deps.directory.refresh();
    await this.#audit(by, 'merchant.create', issued.merchantid, {
      name: input.name,
      payout_currency: input.payoutCurrency,
      payer_mismatch: payerMismatchPolicy(input.payerMismatch ?? 'record'),
    });
    return issued;
  }

  /** What a mismatched payer check does to the merchant's payments (docs/operations.md "Payer check"). */
  async setPayerMismatch(merchantId: string, policy: string, by: ConsoleActor): Promise<PayerMismatchPolicy> {
    const set = await this.#deps.manage.setPayerMismatch(merchantId, policy);
    await this.#deps.directory.refresh();
    await this.#audit(by, 'merchant.payer_mismatch', merchantId, { payer_mismatch: set });
    return set;
  }

  /** Disabling also ends the merchant's console sessions (ManageMerchants does, for every caller). */
  async setStatus(merchantId: string, status: 'active' | 'disabled', by: ConsoleActor): Promise<void> {
    await this.#deps.manage.setStatus(merchantId, status);
    await this.#deps.directory.refresh();
    await this.#audit(by, status === 'disabled' ? 'merchant.disable' : 'merchant.enable', merchantId);
  }

  async rotatePassword(merchantId: string, by: ConsoleActor): Promise<{ merchantid: string; password: string }> {
    const issued = await this.#deps.manage.rotatePassword(merchantId);
    await this.#deps.directory.refresh();
    await this.#audit(by, 'merchant.rotate_password', merchantId);
    return issued;
  }

  /** The old secret keeps signing for WEBHOOK_SECRET_OVERLAP when it can still be opened. */
  async rotateWebhookSecret(
    merchantId: string,
    by: ConsoleActor,
  ): Promise<{ merchantid: string; webhook_secret: string; previous_valid_until: string | null }> {
    const issued = await this.#deps.manage.rotateWebhookSecret(merchantId);
    await this.#deps.directory.refresh();
    await this.#audit(by, 'merchant.rotate_webhook_secret', merchantId, {
      previous_valid_until: issued.previous_valid_until,
    });
    return issued;
  }

  /** A new console password (the API password is untouched); the merchant's console sessions end. */
  async issueConsolePassword(merchantId: string, by: ConsoleActor): Promise<{ merchantid: string; password: string }> {
    const issued = await this.#deps.accounts.issueMerchantPassword(merchantId);
    await this.#audit(by, 'merchant.console_password', merchantId);
    return issued;
  }

  #audit(by: ConsoleActor, action: string, merchantId: string, details: Record<string, unknown> = {}): Promise<void> {
    return this.#deps.audit.record(auditActorOf(by.who), action, merchantId, details, by.origin);
  }
}
