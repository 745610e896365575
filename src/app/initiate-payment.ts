// Use case: start a Thai QR debit payment. One durable write (the transaction row, unique
// per merchant and trackid); an identical retry gets the stored answer back. How the write is
// grouped with others (SQLite group commit, PostgreSQL multi-row INSERT) is the store's
// business (app/ports/store.ts PaymentStore.insertOrGet).
import { fingerprint, type SecretKey } from '../domain/credentials.ts';
import { GatewayError } from '../domain/errors.ts';
import { newTransactionIdentifiers } from '../domain/ids.ts';
import type { NormalisedInitiation } from '../domain/initiation-request.ts';
import { initiationAccepted } from '../domain/responses.ts';
import type { InitiationResponse } from '../domain/wire/payment-responses.ts';
import type { PaymentStore } from './ports/store.ts';
import type { TransactionRecord } from '../domain/transaction.ts';

export type InitiatePaymentDeps = {
  insertOrGet: PaymentStore['insertOrGet'];
  key: SecretKey;
  publicBaseUrl: string;
  ttlMs: number;
  now: () => number;
};

export type InitiationOutcome = { response: InitiationResponse; replayed: boolean; transaction: TransactionRecord };

/** The canonical form compared for idempotency: validated fields only, never raw bytes or the password. */
export function canonicalRequest(merchantId: string, input: NormalisedInitiation): string {
  // returnUrl_on_failure is part of the content (it is stored and acted on) but only when given,
  // so a request without it hashes as it did before the field existed (replays across the upgrade).
  const { returnUrlOnFailure, ...rest } = input;
  const content = returnUrlOnFailure === null ? rest : { ...rest, returnUrlOnFailure };
  return JSON.stringify([merchantId, { ...content, amountMinor: input.amountMinor.toString() }]);
}

export class InitiatePayment {
  readonly #deps: InitiatePaymentDeps;
  constructor(deps: InitiatePaymentDeps) {
    this.#deps = deps;
  }

  async execute(merchantId: string, input: NormalisedInitiation): Promise<InitiationOutcome> {
    const { insertOrGet, key, publicBaseUrl, ttlMs, now } = this.#deps;
    const createdAt = now();
    const requestHash = fingerprint(key, canonicalRequest(merchantId, input));
    const candidate: TransactionRecord = {
      ...newTransactionIdentifiers(createdAt, key),
      merchantId,
      trackid: input.trackid,
      requestHash,
      status: 'PROCESSING',
      errorCodeTag: null,
      errorText: null,
      amountMinor: input.amountMinor,
      currency: input.currency,
      paymentMethod: input.paymentMethod,
      billCountry: input.billCountry,
      billCustomerIp: input.billCustomerIp,
      billEmail: input.billEmail,
      returnUrl: input.returnUrl,
      serverUrl: input.serverUrl,
      payerAccountNo: input.payerAccountNo,
      payerAccountName: input.payerAccountName,
      payerBankCode: input.payerBankCode,
      productdesc: input.productdesc,
      lang: input.lang,
      createdAt,
      expiresAt: createdAt + ttlMs,
      completedAt: null,
      returnUrlOnFailure: input.returnUrlOnFailure,
      refundedMinor: 0n,
      payerCheck: null,
    };
    const { inserted, row } = await insertOrGet(candidate);
    if (!inserted && row.requestHash !== requestHash) {
      throw new GatewayError(
        'DUPLICATE_TRACKID',
        `The trackid '${input.trackid}' was already used for a different payment request.`,
      );
    }
    return { response: initiationAccepted(row, publicBaseUrl), replayed: !inserted, transaction: row };
  }
}
