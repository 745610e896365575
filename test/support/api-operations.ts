// Every operation the OpenAPI document must name, in ONE place: add new operations here.
// test/http/openapi/openapi.test.ts checks the document has exactly these, plus the webhooks.
export const EXPECTED_OPERATIONS: readonly { method: 'get' | 'post'; path: string; operationId: string }[] = [
  { method: 'post', path: '/transaction/s2s', operationId: 'initiatePayment' },
  { method: 'post', path: '/transaction/status', operationId: 'getTransactionStatus' },
  { method: 'post', path: '/transaction/refund', operationId: 'refundPayment' },
  { method: 'post', path: '/sandbox/transaction/complete', operationId: 'completeSandboxPayment' },
  { method: 'post', path: '/GatewayInstaPay/QueryPayoutBalance', operationId: 'queryPayoutBalance' },
  { method: 'get', path: '/healthz', operationId: 'health' },
  { method: 'get', path: '/readyz', operationId: 'ready' },
];

export const EXPECTED_WEBHOOKS: readonly string[] = ['paymentResult', 'refund'];
