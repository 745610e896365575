// @thaiqr-gateway/client — the merchant's side of the Thai QR payment gateway API.
// Zero dependencies: the global fetch (Node ≥ 20) and node:crypto.
//
//   import { GatewayClient, GatewayError, verifyNotification } from '@thaiqr-gateway/client';
//   const gateway = new GatewayClient({ baseUrl, merchantId, password });
//   const payment = await gateway.initiate({ trackid: 'order-1', bill_amount: '150.00', … });
//   // send the customer to payment.redirectUrl; the result arrives at serverUrl, signed:
//   const check = verifyNotification(webhookSecret, req.headers, rawBody);
//   // the customer's return to returnUrl is only a hint unless its signature verifies:
//   const back = verifyReturn(req.url, webhookSecret);
export { verifyNotification, type VerifyOptions, type VerifyResult, type WebhookHeaders } from './webhooks.ts';
export {
  verifyReturn,
  RETURN_SIGNED_PARAMETERS,
  type ReturnInput,
  type ReturnParameters,
  type VerifyReturnOptions,
  type VerifyReturnResult,
} from './return-signature.ts';
export type * from './types.ts';
import type {
  BalanceResponse,
  GatewayAnswer,
  InitiationRequest,
  InitiationResponse,
  RefundRequest,
  RefundResponse,
  SandboxOutcome,
  StatusResponse,
  TransactionReference,
} from './types.ts';

export type ClientOptions = {
  /** The gateway's public base URL, e.g. `https://pay.example.com` (a path prefix is kept). */
  baseUrl: string;
  merchantId: string;
  password: string;
  /**
   * The operator's SERVICE_NAME: the balance path is `/<serviceName>InstaPay/QueryPayoutBalance`. Default `Gateway`.
   */
  serviceName?: string;
  /** Per request; default 30 s. */
  timeoutMs?: number;
  /** Another fetch (a proxy agent, tests); the global one otherwise. */
  fetch?: typeof fetch;
};

/**
 * The gateway refused a request or could not do it: the contract's error fields and the HTTP
 * status. `responsecode`/`errorCodeTag` are null only when the answer was not the gateway's JSON
 * (a proxy's error page, for instance).
 */
export class GatewayError extends Error {
  readonly httpStatus: number;
  readonly responsecode: string | null;
  readonly errorCodeTag: string | null;
  readonly errorText: string | null;
  /** The gateway's x-request-id: quote it to the operator. */
  readonly requestId: string | null;
  /** The whole answer, when it was JSON. */
  readonly body: Record<string, unknown> | null;

  constructor(fields: {
    httpStatus: number;
    responsecode: string | null;
    errorCodeTag: string | null;
    errorText: string | null;
    requestId: string | null;
    body: Record<string, unknown> | null;
  }) {
    super(fields.errorText ?? `The gateway answered HTTP ${fields.httpStatus} without a readable body.`);
    this.name = 'GatewayError';
    this.httpStatus = fields.httpStatus;
    this.responsecode = fields.responsecode;
    this.errorCodeTag = fields.errorCodeTag;
    this.errorText = fields.errorText;
    this.requestId = fields.requestId;
    this.body = fields.body;
  }
}

export class GatewayClient {
  readonly #base: string;
  readonly #credentials: { merchantid: string; password: string };
  readonly #serviceName: string;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    if (!options || typeof options.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl))
      throw new TypeError('baseUrl must be an http(s) URL');
    if (!options.merchantId || !options.password) throw new TypeError('merchantId and password are required');
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#credentials = { merchantid: options.merchantId, password: options.password };
    this.#serviceName = options.serviceName ?? 'Gateway';
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /** POST /transaction/s2s — starts a payment; send the customer to `redirectUrl`. Idempotent on `trackid`. */
  initiate(request: InitiationRequest): Promise<InitiationResponse> {
    return this.#post<InitiationResponse>('/transaction/s2s', { payment_method: { type: 'THAI_DEBIT' }, ...request });
  }

  /** POST /transaction/status — by the gateway's `transactionid` or your `trackid`. */
  status(reference: TransactionReference | string): Promise<StatusResponse> {
    return this.#post<StatusResponse>(
      '/transaction/status',
      typeof reference === 'string' ? { transactionid: reference } : reference,
    );
  }

  /**
   * POST /transaction/refund — refunds all or part of a successful payment. Repeating the same
   * request refunds once; pass `idempotencyKey` to make two equal refunds distinct on purpose.
   */
  refund(request: RefundRequest): Promise<RefundResponse> {
    const { idempotencyKey, ...body } = request;
    return this.#post<RefundResponse>(
      '/transaction/refund',
      { bill_currencycode: 'THB', ...body },
      idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
    );
  }

  /** POST /<serviceName>InstaPay/QueryPayoutBalance — the payout balance, four decimals. */
  balance(): Promise<BalanceResponse> {
    return this.#post<BalanceResponse>(`/${encodeURIComponent(this.#serviceName)}InstaPay/QueryPayoutBalance`, {});
  }

  /** Sandbox only: finishes a payment as the customer would (`outcome` overrides the amount rule). */
  sandboxComplete(transactionid: string, outcome?: SandboxOutcome): Promise<StatusResponse> {
    return this.#post<StatusResponse>('/sandbox/transaction/complete', {
      transactionid,
      ...(outcome !== undefined && { outcome }),
    });
  }

  async #post<T extends GatewayAnswer>(
    path: string,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): Promise<T> {
    const response = await this.#fetch(`${this.#base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify({ ...body, ...this.#credentials }),
      signal: AbortSignal.timeout(this.#timeoutMs),
      redirect: 'error',
    });
    const text = await response.text();
    let parsed: Record<string, unknown> | null = null;
    try {
      const value: unknown = JSON.parse(text);
      if (value && typeof value === 'object' && !Array.isArray(value)) parsed = value as Record<string, unknown>;
    } catch {
      // not the gateway's JSON: reported below
    }
    const requestId = response.headers.get('x-request-id');
    if (parsed && parsed.type === 'valid' && response.ok) return parsed as T;
    const text_ = (key: string) => (typeof parsed?.[key] === 'string' ? (parsed[key] as string) : null);
    throw new GatewayError({
      httpStatus: response.status,
      responsecode: text_('responsecode'),
      errorCodeTag: text_('error_code_tag'),
      errorText: text_('error_text'),
      requestId,
      body: parsed,
    });
  }
}
