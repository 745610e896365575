// A payment's life at its processor (docs/connectors/kbank.md): the attempts we made there, the
// notifications it sent, and what needs a person. Repositories map their rows to these shapes.

export type ProcessorAttemptKind = 'qr' | 'void';

/**
 * The last processor truth about an attempt. `pending`: written before the request went out, its
 * outcome not known yet (settled by inquiry); `failed`: the processor refused it (nothing exists
 * there); the others are the processor's own states.
 */
export type ProcessorAttemptState =
  'pending' | 'requested' | 'paid' | 'cancelled' | 'expired' | 'voided' | 'not_found' | 'failed';

export type ProcessorAttempt = {
  /** The id the processor knows this attempt by (KBank: our partnerTxnUid). */
  reference: string;
  transactionId: string;
  connector: string;
  kind: ProcessorAttemptKind;
  /** 1, 2, … per (transaction, kind): a payment may need a second QR after an unanswered create. */
  attempt: number;
  state: ProcessorAttemptState;
  stateAt: number;
  qrPayload: string | null;
  expiresAt: number | null;
  accountName: string | null;
  issuer: string | null;
  processorTxnNo: string | null;
  paidAmountMinor: bigint | null;
  paidAt: number | null;
  /** A void: the refund it carries out, and the reference of the paid QR attempt it voids. */
  refundId: string | null;
  parentReference: string | null;
  lastError: string | null;
  /** When the reconciler checks it next; null: never again (final). */
  nextCheckAt: number | null;
  checks: number;
  createdAt: number;
};

/**
 * A new attempt as written before its request goes out: state `pending`, nothing learnt from the
 * processor yet, checked by the reconciler at `nextCheckAt` if no answer comes.
 */
export function pendingAttempt(
  fields: Pick<ProcessorAttempt, 'reference' | 'transactionId' | 'connector' | 'kind' | 'attempt' | 'nextCheckAt'> &
    Partial<Pick<ProcessorAttempt, 'refundId' | 'parentReference'>>,
  now: number,
): ProcessorAttempt {
  return {
    state: 'pending',
    stateAt: now,
    qrPayload: null,
    expiresAt: null,
    accountName: null,
    issuer: null,
    processorTxnNo: null,
    paidAmountMinor: null,
    paidAt: null,
    refundId: null,
    parentReference: null,
    lastError: null,
    checks: 0,
    createdAt: now,
    ...fields,
  };
}

/** Attempt states after which the processor's answer will not change by itself. */
export const FINAL_ATTEMPT_STATES: ReadonlySet<ProcessorAttemptState> = new Set([
  'paid',
  'cancelled',
  'expired',
  'voided',
  'failed',
]);

export type ProcessorNotification = {
  id: string;
  connector: string;
  receivedAt: number;
  sourceIp: string | null;
  /** The body as received (at most the route's limit). */
  body: string;
  reference: string | null;
  processorTxnNo: string | null;
  transactionId: string | null;
  /** What the gateway did with it: 'checked', 'duplicate', 'unknown', 'unreadable', 'refused'. */
  outcome: string;
};

/** Why a payment needs a person. */
export type AttentionKind =
  'paid_after_final' | 'amount_mismatch' | 'void_unknown' | 'void_failed' | 'payer_mismatch' | 'paid_twice';

export type AttentionItem = {
  id: string;
  transactionId: string;
  kind: AttentionKind;
  detail: string;
  amountMinor: bigint | null;
  reference: string | null;
  createdAt: number;
  resolvedAt: number | null;
  resolvedBy: string | null;
  resolution: string | null;
};
