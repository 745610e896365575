// The answer both baseline servers give: the initiation response's shape and size with
// fixed ids, echoing trackid and merchantid, so the baselines serialise what the gateway does.
export function baselineAnswer(body: unknown): Record<string, unknown> {
  const request = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  return {
    type: 'valid',
    result: 'Processing',
    responsecode: '9',
    trackid: typeof request.trackid === 'string' ? request.trackid : null,
    merchantid: typeof request.merchantid === 'string' ? request.merchantid : null,
    redirectUrl: 'http://127.0.0.1:8080/transaction/Redirect?ID=Ztq3mJ0kq6y1w0ZlqkL9bQyJr8m5xV2d',
    token: 'c1Hq8wQ0u3l2P5kq4Zr9mYb6XcVt7Ns1',
    transactionid: '0197a6f0-1c2b-7d3e-8f40-5a6b7c8d9e0f',
    error_code_tag: null,
    error_text: null,
  };
}
