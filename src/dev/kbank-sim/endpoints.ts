// The faithful surface's endpoints, by the short names the fault API and the log use.
export const ENDPOINTS = {
  token: { method: 'POST', path: '/v2/oauth/token' },
  request: { method: 'POST', path: '/v1/qrpayment/request' },
  inquiry: { method: 'POST', path: '/v1/qrpayment/v4/inquiry' },
  cancel: { method: 'POST', path: '/v1/qrpayment/cancel' },
  void: { method: 'POST', path: '/v1/qrpayment/void' },
  settlement: { method: 'POST', path: '/v1/qrpayment/settlement' },
  ssl: { method: 'GET', path: '/exercise/ssl' },
} as const;

export type Endpoint = keyof typeof ENDPOINTS;

export function isEndpoint(name: string): name is Endpoint {
  return Object.hasOwn(ENDPOINTS, name);
}

/** The endpoint a path names (whatever the method), or null. */
export function endpointAt(path: string): Endpoint | null {
  for (const [name, endpoint] of Object.entries(ENDPOINTS)) if (endpoint.path === path) return name as Endpoint;
  return null;
}

/** An endpoint by its short name or its path. */
export function endpointNamed(text: string): Endpoint | null {
  return isEndpoint(text) ? text : endpointAt(text);
}
