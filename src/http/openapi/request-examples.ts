// The request example of each operation in /openapi.json, so that /docs' "Try it out" starts from
// a request the gateway accepts instead of one Swagger UI makes up from the schemas (a 100-digit
// amount, "string", "additionalProp1"). Shaped like the requests real clients send
// (test/fixtures/README.md), and in the order a sandbox walkthrough sends them: start a payment,
// read it, complete it, refund part of it, read the balance. `M_EXAMPLE` and the password are
// placeholders for the merchant's own; `transactionid` is the one the recorded initiation answer
// shows (examples.json): in /docs, paste the id your own initiation returned.
// test/http/openapi/request-examples.test.ts sends each of them to a gateway and expects success.

export const EXAMPLE_MERCHANT_ID = 'M_EXAMPLE';
export const EXAMPLE_PASSWORD = 'your-merchant-password';
export const EXAMPLE_TRANSACTION_ID = '01a20aa5-07aa-74d0-837f-0f8e9107de57';

const credentials = { merchantid: EXAMPLE_MERCHANT_ID, password: EXAMPLE_PASSWORD };

export type RequestExample = { summary: string; value: Record<string, unknown> };

/** operationId → its request example, in walkthrough order. */
export const REQUEST_EXAMPLES: Readonly<Record<string, RequestExample>> = {
  initiatePayment: {
    summary: 'Start a Thai QR debit payment of 1,000.00 THB',
    value: {
      ...credentials,
      payment_method: { type: 'THAI_DEBIT' },
      trackid: 'order-1001',
      bill_currencycode: 'THB',
      bill_amount: '1000.00',
      bill_country: 'TH',
      bill_customerip: '203.0.113.7',
      bill_email: 'payer@example.com',
      returnUrl: 'https://shop.example/return?order=1001',
      serverUrl: 'https://shop.example/gateway-notify',
      payer_account_no: '1234567890',
      payer_account_name: 'Somchai Jaidee',
      payer_bank_code: 'SCB',
    },
  },
  getTransactionStatus: {
    summary: 'Read a payment by your own trackid',
    value: { ...credentials, trackid: 'order-1001' },
  },
  completeSandboxPayment: {
    summary: 'Pay it as the customer would (sandbox)',
    value: { ...credentials, transactionid: EXAMPLE_TRANSACTION_ID, outcome: 'success' },
  },
  refundPayment: {
    summary: 'Refund 150.00 THB of a successful payment',
    value: {
      ...credentials,
      transactionid: EXAMPLE_TRANSACTION_ID,
      bill_amount: '150.00',
      bill_currencycode: 'THB',
      reason: 'Customer returned one item',
    },
  },
  queryPayoutBalance: {
    summary: 'The payout balance',
    value: { ...credentials },
  },
};
