// The processor connector's port: where a payment's money moves (docs/architecture.md
// "Connectors"). Implementations live in connectors/ — one folder each (sandbox/, kbank/, scb/) —
// and declare what they can do; the use cases read those capabilities instead of asking which
// connector they hold.
//
// Every call goes out OUTSIDE any database transaction. A call whose outcome is unknown (a
// timeout, a 5xx) throws ProcessorUnavailable; the caller settles it later by `queryPayment`,
// never by repeating a money-moving call blindly.

export type ProcessorCapabilities = {
  /** True only for connectors that move real money (live mode refuses to start without one). */
  live: boolean;
  /**
   * Who builds the QR the customer scans: the gateway from its own biller id (the sandbox), or
   * the processor, created once per payment at the first view of the hosted page (a bank).
   */
  qr: 'gateway' | 'processor';
  /**
   * The processor can cancel an unpaid QR, so expiry and the customer's Cancel close it first.
   * Without it (SCB), they end the payment on our side only; the QR stays payable until the
   * processor's own expiry, and a payment after the end goes to the needs-attention list.
   */
  cancel: boolean;
  /**
   * Refunds through the API: 'partial' (any amount up to what is left), 'void' (the full amount
   * of a payment, inside a window the connector checks), or 'none'.
   */
  refunds: 'partial' | 'void' | 'none';
  /** The processor sends notifications of payments (hints: an inquiry confirms them). */
  notifications: boolean;
};

/** What the processor needs to create the QR of one payment. */
export type CreatePaymentRequest = {
  transactionId: string;
  merchantId: string;
  amountMinor: bigint;
  currency: string;
  /** Our reference in the processor's records (no personal data). */
  reference1: string;
  /** A new, unique id for this attempt, at most 15 characters (the processor's request id). */
  attemptId: string;
};

/** A QR the processor created: its reference, the payload to show verbatim, and when it dies. */
export type ProcessorQr = {
  /** The processor's handle on this payment attempt (KBank: our partnerTxnUid; SCB: our ref1). */
  reference: string;
  /** The EMV payload, verified (CRC, currency, amount) by the connector before it is returned. */
  qrPayload: string;
  expiresAt: number;
  /** The payee's account name as the processor shows it, when it says. */
  accountName: string | null;
  /** Who issued the QR, for the page ("KBank"). */
  issuer: string;
};

export type ProcessorPaymentState = 'requested' | 'paid' | 'cancelled' | 'expired' | 'voided' | 'not_found';

/** The processor's truth about one attempt, checked against our own ids by the connector. */
export type ProcessorPaymentStatus = {
  state: ProcessorPaymentState;
  /** The processor's payment number, once paid. */
  processorTxnNo: string | null;
  /** What was paid, exactly, once paid (already compared with nothing: the caller compares). */
  paidAmountMinor: bigint | null;
  currency: string | null;
  /** The processor's merchant id on the answer (the caller compares it with its own). */
  processorMerchantId: string | null;
  /**
   * Who paid, as the processor reports it once paid (SCB does; KBank does not: null). The
   * payer check (domain/payer-check.ts) compares it with the payer the merchant named.
   */
  payer: ReportedPayer | null;
  /**
   * Further payments the processor holds on the same attempt, beyond the one reported (a QR paid
   * twice: SCB lists each); empty for most. Each needs a person (app/processor/sync-payment.ts).
   */
  alsoPaid: AlsoPaid[];
};

/** A further payment on one attempt: the processor's payment number and what was paid. */
export type AlsoPaid = { processorTxnNo: string | null; paidAmountMinor: bigint | null };

/** The paying account as a processor reports it: any field may be missing; the account may be masked. */
export type ReportedPayer = {
  /** The sending bank's three-digit Bank of Thailand code ("014"). */
  bankCode: string | null;
  /** The account number as reported: digits, possibly masked ("xxx-x-x1234-x") or with separators. */
  accountNumber: string | null;
  name: string | null;
};

/** What a cancel found: closed now, already paid (the caller confirms by query), or final otherwise. */
export type CancelOutcome = 'cancelled' | 'paid' | 'final';

/** An inbound notification as a hint: the attempt it names, or why it was not understood. */
export type NotificationHint =
  { ok: true; reference: string; processorTxnNo: string | null } | { ok: false; reason: string };

export type RefundRequest = {
  /** Our refund id, stable across the merchant's retries of the same request: the processor's idempotency key. */
  refundId: string;
  transactionId: string;
  merchantId: string;
  amountMinor: bigint;
  currency: string;
  reason: string | null;
  /** The payment's captured amount and what was refunded before this request. */
  paymentAmountMinor: bigint;
  refundedMinor: bigint;
  /** When the payment was completed (a void window is counted from it). */
  paidAt: number | null;
  /** The processor's reference of the paid attempt (a processor-QR payment), if any. */
  paymentReference: string | null;
};

/** The processor accepted the refund; `reference` is its own id for it, if it has one. */
export type RefundAccepted = { reference: string | null };

export type ProcessorConnector = {
  readonly name: string;
  readonly capabilities: ProcessorCapabilities;
  /**
   * The processor's id for one attempt (at most 15 characters, the processor's alphabet), derived
   * from `seed` (`<transaction id>:<attempt>` for a QR, `<refund id>:<attempt>` for a void) so an
   * instance that retries after a crash finds the attempt it made, and racing instances agree.
   */
  attemptReference(kind: 'qr' | 'void', seed: string): string;
  /** Creates the payment's QR at the processor (capabilities.qr === 'processor'). */
  createPayment(request: CreatePaymentRequest): Promise<ProcessorQr>;
  /**
   * The processor's state of one attempt, by its reference. `createdAt` is when the attempt was
   * written (ProcessorAttempt.createdAt): a processor that finds payments by the day they were
   * paid (SCB) looks from that day to the QR's expiry; KBank needs the reference alone.
   */
  queryPayment(reference: string, createdAt: number): Promise<ProcessorPaymentStatus>;
  /** Closes an unpaid QR (capabilities.cancel; never called without it). */
  cancelPayment(reference: string): Promise<CancelOutcome>;
  /**
   * Sends a refund; resolves when accepted, throws a GatewayError to show the merchant when
   * refused (REFUND_NOT_ALLOWED with a sentence saying why). A retry with the same refundId
   * reaches the same refund at the processor, never a second one. BEFORE the refund is
   * committed, after every check that needs no money movement (app/refund-payment.ts).
   */
  refund(request: RefundRequest): Promise<RefundAccepted>;
  /** Reads an inbound notification (capabilities.notifications); never trusted beyond a hint. */
  parseNotification(body: Buffer, contentType: string | undefined): NotificationHint;
  /** Releases the connector's connections, so a CLI command that used it ends at once. */
  close?(): void;
};
