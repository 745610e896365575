// The payment lifecycle: PROCESSING → SUCCESS | FAILED, written once (docs/api.md "Lifecycle").
import { GatewayError } from './errors.ts';

export type TransactionStatus = 'PROCESSING' | 'SUCCESS' | 'FAILED';
export type FailureTag = 'DECLINED' | 'EXPIRED' | 'CANCELLED';
/**
 * Why a payment ends. `processor_paid`: a live processor reports it PAID (confirmed by a query):
 * the bank is the truth about money, so it ends SUCCESS even past our own deadline while our row is
 * still PROCESSING (docs/connectors/kbank.md "Lifecycle"). `payer_accepted` / `payer_declined`: an
 * operator's decision on a payment the payer check held (paid at the processor from an account
 * other than the one named): it ends SUCCESS, or FAILED/DECLINED with the money returned by bank
 * transfer (docs/console.md "Needs attention"); never turned into an expiry either.
 */
export type CompletionCause =
  'confirm' | 'cancel' | 'expire' | 'sandbox' | 'processor_paid' | 'payer_accepted' | 'payer_declined';

/** The causes that end a payment held by the payer check, and nothing else may. */
export function isPayerDecision(cause: CompletionCause): boolean {
  return cause === 'payer_accepted' || cause === 'payer_declined';
}

/**
 * What a sandbox completion may force (docs/api.md, "Sandbox completion"). The one list behind the
 * HTTP route, its documented schema, the console's form and `gateway trigger --outcome`.
 */
export const SANDBOX_OUTCOMES = ['success', 'failed', 'cancelled', 'expired'] as const;
export type SandboxOutcome = (typeof SANDBOX_OUTCOMES)[number];

export function isSandboxOutcome(value: unknown): value is SandboxOutcome {
  return (SANDBOX_OUTCOMES as readonly unknown[]).includes(value);
}

export const RESPONSE_CODE: Record<TransactionStatus, string> = { PROCESSING: '9', SUCCESS: '0', FAILED: '6' };
export const RESULT_TEXT: Record<TransactionStatus, string> = {
  PROCESSING: 'Processing',
  SUCCESS: 'CAPTURED',
  FAILED: 'Not Successful',
};

export const FAILURE_TEXT: Record<FailureTag, string> = {
  DECLINED: "The payment was declined by the payer's bank.",
  EXPIRED: 'The payment was not completed before it expired.',
  CANCELLED: 'The customer cancelled the payment.',
};

/** The sandbox amount rule (docs/api.md "Lifecycle"): ≤ 10000.00 THB succeeds, above fails with DECLINED. */
export const SANDBOX_SUCCESS_LIMIT_MINOR = 10_000n * 10_000n;

export type FinalOutcome = { status: 'SUCCESS'; tag: null } | { status: 'FAILED'; tag: FailureTag };

export function sandboxOutcome(amountMinor: bigint): FinalOutcome {
  return amountMinor <= SANDBOX_SUCCESS_LIMIT_MINOR
    ? { status: 'SUCCESS', tag: null }
    : { status: 'FAILED', tag: 'DECLINED' };
}

export function outcomeFor(cause: CompletionCause, amountMinor: bigint, override?: SandboxOutcome): FinalOutcome {
  if (cause === 'processor_paid' || cause === 'payer_accepted') return { status: 'SUCCESS', tag: null };
  if (cause === 'payer_declined') return { status: 'FAILED', tag: 'DECLINED' };
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

export type CompletionDecision = { cause: CompletionCause; outcome: FinalOutcome };

/**
 * Decides how a PROCESSING transaction ends. Once its deadline has passed it is expired in
 * meaning even if the sweeper has not recorded that yet, so a late confirm or cancel (or a
 * sandbox completion without an explicit override) ends as EXPIRED, never SUCCESS. The
 * sandbox `outcome` override is a testing tool and wins. An `expire` before the deadline is
 * refused, so a sweeper with a fast clock cannot end a payment the customer may still make.
 */
export function decideCompletion(input: {
  cause: CompletionCause;
  amountMinor: bigint;
  expiresAt: number;
  now: number;
  override?: SandboxOutcome | undefined;
}): CompletionDecision {
  const expired = input.now >= input.expiresAt;
  if (input.cause === 'expire' && !expired) {
    throw new GatewayError('INVALID_STATE', 'The transaction has not reached its expiry time yet.');
  }
  const overridden = input.cause === 'sandbox' && input.override !== undefined;
  // Money the processor took is never turned into an expiry: the payment succeeded.
  const paid = input.cause === 'processor_paid' || isPayerDecision(input.cause);
  if (expired && !overridden && !paid) return { cause: 'expire', outcome: { status: 'FAILED', tag: 'EXPIRED' } };
  return { cause: input.cause, outcome: outcomeFor(input.cause, input.amountMinor, input.override) };
}

/** A final state never changes again. */
export function assertCanComplete(status: TransactionStatus): void {
  if (status !== 'PROCESSING') throw alreadyFinal(status);
}

export function alreadyFinal(status?: TransactionStatus): GatewayError {
  const shown = status === undefined || status === 'PROCESSING' ? '' : ` (${RESULT_TEXT[status]})`;
  return new GatewayError('INVALID_STATE', `The transaction is already final${shown} and cannot change.`);
}
