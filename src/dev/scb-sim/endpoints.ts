// The faithful surface's endpoints (docs/connectors/scb-sim.md "The faithful surface"), by the
// short names the fault API and the log use. Paths are below BASE_PATH (/partners/sandbox).
export const ENDPOINTS = {
  token: { method: 'POST', path: '/v1/oauth/token' },
  createV1: { method: 'POST', path: '/v1/payment/qrcode/create' },
  createV2: { method: 'POST', path: '/v2/payment/qrcode/create' },
  inquiry: { method: 'GET', path: '/v1/payment/billpayment/inquiry' },
  slip: { method: 'GET', path: '/v1/payment/billpayment/transactions/{transactionId}' },
} as const;

export type Endpoint = keyof typeof ENDPOINTS;

const SLIP = /^\/v1\/payment\/billpayment\/transactions\/([^/]+)$/;

/** The endpoint a path (below the base path) names, whatever the method, with the slip's id; or null. */
export function endpointAt(path: string): { endpoint: Endpoint; transactionId?: string } | null {
  for (const [name, endpoint] of Object.entries(ENDPOINTS))
    if (endpoint.path === path) return { endpoint: name as Endpoint };
  const slip = SLIP.exec(path);
  return slip ? { endpoint: 'slip', transactionId: decodeURIComponent(slip[1]!) } : null;
}

/** An endpoint by its short name, or a fault's "confirmation" (the bank's outgoing call). */
export function endpointNamed(text: string): Endpoint | null {
  return Object.hasOwn(ENDPOINTS, text) ? (text as Endpoint) : (endpointAt(text)?.endpoint ?? null);
}
