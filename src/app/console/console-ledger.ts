// The console's balances page and CSV export (docs/console.md "CSV export"): a merchant's
// accounts with their balances, one account's postings a page at a time, and every posting of an
// account for the export, which is audited. A merchant reads only its own ledger, whatever
// merchant it names; an operator picks one.
import { GatewayError } from '../../domain/errors.ts';
import type { MerchantRecord } from '../../domain/merchant.ts';
import type { LedgerOperations, MerchantLedger } from '../ledger-operations.ts';
import type { ManageMerchants } from '../manage-merchants.ts';
import type { ConsoleReads, PostingRow } from '../ports/console.ts';
import { merchantScopeOf, type LoginSubject } from './console-accounts.ts';
import { auditActorOf, type ConsoleActor, type ConsoleAudit } from './console-audit.ts';

/** Postings read per query while exporting: the export streams, it never holds a whole chain. */
const EXPORT_BATCH = 1000;

export type LedgerAccount = MerchantLedger['accounts'][number];
export type LedgerView = { shown: MerchantLedger; account: LedgerAccount };

export type ConsoleLedgerDeps = {
  ledger: Pick<LedgerOperations, 'show'>;
  reads: Pick<ConsoleReads, 'postings'>;
  merchants: Pick<ManageMerchants, 'list'>;
  audit: ConsoleAudit;
};

export class ConsoleLedger {
  readonly #deps: ConsoleLedgerDeps;
  constructor(deps: ConsoleLedgerDeps) {
    this.#deps = deps;
  }

  /** The merchants an operator may pick from. */
  merchants(): Promise<MerchantRecord[]> {
    return this.#deps.merchants.list();
  }

  /**
   * The merchant's accounts and the one asked for (by default the first: its payout account);
   * NOT_FOUND for an unknown merchant.
   */
  async view(who: LoginSubject, merchantId: string, accountId: string | undefined): Promise<LedgerView> {
    const shown = await this.#deps.ledger
      .show(merchantScopeOf(who) ?? merchantId, { limit: 1 })
      .catch((error: unknown) => {
        if (error instanceof GatewayError && error.tag === 'NOT_FOUND') return undefined;
        throw error;
      });
    if (!shown) throw new GatewayError('NOT_FOUND', 'No such merchant.');
    const account = shown.accounts.find((a) => a.id === accountId) ?? shown.accounts[0]!;
    return { shown, account };
  }

  /** One page of an account of a `view`, newest first, before `beforeSeq` when given. */
  postings(account: LedgerAccount, options: { limit: number; beforeSeq?: bigint }): Promise<PostingRow[]> {
    return this.#deps.reads.postings(account.id, options);
  }

  /** Every posting of the account, oldest first, read lazily; the export is audited before the first read. */
  async exportPostings(
    input: ConsoleActor & { merchantId: string; accountId: string | undefined },
  ): Promise<{ account: LedgerAccount; postings: AsyncIterable<PostingRow> }> {
    const { account } = await this.view(input.who, input.merchantId, input.accountId);
    await this.#deps.audit.record(
      auditActorOf(input.who),
      'ledger.export_csv',
      account.id,
      { merchantid: merchantScopeOf(input.who) ?? input.merchantId },
      input.origin,
    );
    return { account, postings: this.#allPostings(account.id) };
  }

  async *#allPostings(accountId: string): AsyncGenerator<PostingRow> {
    for (let after = 0n; ;) {
      const batch = await this.#deps.reads.postings(accountId, { limit: EXPORT_BATCH, afterSeq: after });
      yield* batch;
      if (batch.length < EXPORT_BATCH) return;
      after = batch.at(-1)!.accountSeq;
    }
  }
}
