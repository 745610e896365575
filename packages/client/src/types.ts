// The request and response bodies of the gateway's merchant API (its /openapi.json has the
// full description; docs/api.md the rules).

export type GatewayAnswer = { type: 'valid' | 'error'; result: string; responsecode: string };

export type InitiationRequest = {
  trackid: string;
  bill_amount: string | number;
  bill_currencycode: string;
  bill_country: string;
  bill_customerip: string;
  bill_email: string;
  returnUrl: string;
  serverUrl: string;
  payer_account_no: string;
  payer_account_name: string;
  payer_bank_code: string;
  productdesc?: string;
  lang?: 'th' | 'en';
  /** Added for you: `{ type: 'THAI_DEBIT' }`. */
  payment_method?: { type: 'THAI_DEBIT' };
};

export type InitiationResponse = GatewayAnswer & {
  trackid: string | null;
  merchantid: string | null;
  redirectUrl: string | null;
  token: string | null;
  transactionid: string | null;
  error_code_tag: string | null;
  error_text: string | null;
};

export type StatusResponse = InitiationResponse & {
  bill_amount: string | null;
  bill_currencycode: string | null;
  created_at: string | null;
  completed_at: string | null;
  /** Total refunded so far ("0.00" when none), on gateways with refunds. */
  refunded_amount?: string | null;
  /** Whether the account that paid is the payer you named; absent until the processor reported the payment. */
  payer_check?: PayerCheck;
};

/** The payer check's verdict (docs/api.md "Payer check"). */
export type PayerCheck = 'matched' | 'mismatched' | 'unknown';

export type TransactionReference =
  { transactionid: string; trackid?: never } | { trackid: string; transactionid?: never };

export type SandboxOutcome = 'success' | 'failed' | 'cancelled' | 'expired';

export type RefundRequest = {
  transactionid: string;
  bill_amount: string | number;
  /** Default `THB`. */
  bill_currencycode?: string;
  reason?: string;
  /** Your free-text reference for this refund. */
  trackid?: string;
  /** Sent as the Idempotency-Key header. */
  idempotencyKey?: string;
};

export type RefundResponse = GatewayAnswer & {
  merchantid: string | null;
  /** The `trackid` you sent, echoed; the payment's trackid (your order reference) when you sent none. */
  trackid: string | null;
  transactionid: string | null;
  refundid: string | null;
  /** The `trackid` you sent with the refund: your reference for it. */
  reference: string | null;
  bill_amount: string | null;
  bill_currencycode: string | null;
  refunded_amount: string | null;
  refundable_amount: string | null;
  error_code_tag: string | null;
  error_text: string | null;
  created_at: string | null;
};

export type BalanceResponse = GatewayAnswer & {
  merchantid: string | null;
  token: null;
  error_code_tag: string | null;
  error_text: string;
  description: string;
  /** Four decimals, e.g. "12500.5000". */
  balanceAmt: string | null;
  currency: string | null;
  maskedcard: string | null;
};

/** The body of a payment result notification (after verifyNotification). */
export type PaymentNotification = {
  type: 'valid';
  result: string;
  responsecode: string;
  trackid: string;
  merchantid: string;
  transactionid: string;
  token: string;
  bill_amount: string;
  bill_currencycode: string;
  payment_method: string;
  error_code_tag: 'DECLINED' | 'EXPIRED' | 'CANCELLED' | null;
  error_text: string | null;
  event_id: string;
  created_at: string;
  /** Whether the account that paid is the payer you named; absent when the processor said nothing. */
  payer_check?: PayerCheck;
};
