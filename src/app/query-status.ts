// Use case: a merchant asks for the state of one of its own transactions.
import { GatewayError } from '../domain/errors.ts';
import type { PaymentStore } from './ports/store.ts';
import type { TransactionRecord } from '../domain/transaction.ts';

export async function findMerchantTransaction(
  transactions: PaymentStore,
  merchantId: string,
  by: { transactionid?: string; trackid?: string },
): Promise<TransactionRecord> {
  const found =
    by.transactionid !== undefined
      ? await transactions.findById(merchantId, by.transactionid)
      : by.trackid !== undefined
        ? await transactions.findByTrackid(merchantId, by.trackid)
        : undefined;
  if (!found)
    throw new GatewayError('NOT_FOUND', 'No transaction with that transactionid or trackid exists for this merchant.');
  return found;
}
