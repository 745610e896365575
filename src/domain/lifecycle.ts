// The payment lifecycle (contract §3): PROCESSING → SUCCESS | FAILED, written once.
import { GatewayError } from './errors.ts';

export type TransactionStatus = 'PROCESSING' | 'SUCCESS' | 'FAILED';
export type FailureTag = 'DECLINED' | 'EXPIRED' | 'CANCELLED';
export type CompletionCause = 'confirm' | 'cancel' | 'expire' | 'sandbox';
export type SandboxOutcome = 'success' | 'failed' | 'cancelled' | 'expired';

export const RESPONSE_CODE: Record<TransactionStatus, string> = { PROCESSING: '9', SUCCESS: '0', FAILED: '6' };
export const RESULT_TEXT: Record<TransactionStatus, string> = {
  PROCESSING: 'Processing',
  SUCCESS: 'CAPTURED',
  FAILED: 'Not Successful',
};

export const FAILURE_TEXT: Record<FailureTag, string> = {
  DECLINED: 'The payment was declined by the payer\'s bank.',
  EXPIRED: 'The payment was not completed before it expired.',
  CANCELLED: 'The customer cancelled the payment.',
};

/** Sandbox rule [spec]: ≤ 10000.00 THB succeeds, above fails with DECLINED. */
export const SANDBOX_SUCCESS_LIMIT_MINOR = 10_000n * 10_000n;

export type FinalOutcome = { status: 'SUCCESS'; tag: null } | { status: 'FAILED'; tag: FailureTag };

export function sandboxOutcome(amountMinor: bigint): FinalOutcome {
  return amountMinor <= SANDBOX_SUCCESS_LIMIT_MINOR ? { status: 'SUCCESS', tag: null } : { status: 'FAILED', tag: 'DECLINED' };
}

export function outcomeFor(cause: CompletionCause, amountMinor: bigint, override?: SandboxOutcome): FinalOutcome {
  if (cause === 'cancel') return { status: 'FAILED', tag: 'CANCELLED' };
  if (cause === 'expire') return { status: 'FAILED', tag: 'EXPIRED' };
  switch (override) {
    case 'success':
      return { status: 'SUCCESS', tag: null };
    case 'failed':
      return { status: 'FAILED', tag: 'DECLINED' };
    case 'cancelled':
      return { status: 'FAILED', tag: 'CANCELLED' };
    case 'expired':
      return { status: 'FAILED', tag: 'EXPIRED' };
    default:
      return sandboxOutcome(amountMinor);
  }
}

/** A final state never changes again. */
export function assertCanComplete(status: TransactionStatus): void {
  if (status !== 'PROCESSING') {
    throw new GatewayError('INVALID_STATE', `The transaction is already final (${RESULT_TEXT[status]}) and cannot change.`);
  }
}
