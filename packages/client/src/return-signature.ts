// The signature on the customer's way back to the shop (docs/hosted-page.md "Back to the
// merchant"): the one implementation, as webhooks.ts is for notifications. The gateway appends
// `ts` and `signature` after the result parameters of the return URL with signReturn from this
// file (src/domain/return-signature.ts); merchants check them with verifyReturn.
//
// signed content:  `return.${ts}.` + the five result values joined by "\n", in this order:
//                  result, responsecode, trackid, transactionid, responsedescription
//                  (the values as decoded from the query; a trackid holds no line break)
// signature:       `v1,` + base64(HMAC-SHA256(key, signed content)), one per secret, space-separated
// key:             the merchant's webhook secret, as for notifications (webhookKey)
// The `return` in the id's place keeps a return signature from ever equalling a notification's,
// whose id is an `evt_…`.
import { checkSigned, keysOf, webhookKey, webhookSignature } from './webhooks.ts';

/** The result parameters the signature covers, in the order they are signed. */
export const RETURN_SIGNED_PARAMETERS = [
  'result',
  'responsecode',
  'trackid',
  'transactionid',
  'responsedescription',
] as const;

export type ReturnParameterName = (typeof RETURN_SIGNED_PARAMETERS)[number];
/** The verified result parameters of a return. */
export type ReturnParameters = Record<ReturnParameterName, string>;
/** `{ ok: true, params }` carries the values that were verified: act on these, not on others read from the URL. */
export type VerifyReturnResult =
  { ok: true; params: ReturnParameters; timestamp: number } | { ok: false; reason: string };
/**
 * The return request as the merchant has it: the full URL (or just its query, with or without
 * `?`), a URL or URLSearchParams, or the parsed query as a framework gives it (`req.query`).
 */
export type ReturnInput =
  string | URL | URLSearchParams | Record<string, string | readonly string[] | undefined | unknown>;
export type VerifyReturnOptions = {
  /** Accepted age (and clock difference into the future) in seconds. Default 300. */
  toleranceSeconds?: number;
  /** "Now" in Unix seconds (tests); the system clock otherwise. */
  nowSeconds?: number;
};

/** The text the HMAC is taken over. */
export function returnSignedContent(params: ReturnParameters): string {
  return RETURN_SIGNED_PARAMETERS.map((name) => params[name]).join('\n');
}

/** The `signature` parameter's value: one `v1,<base64>` per secret, space-separated (as webhook-signature). */
export function signReturn(secrets: readonly string[], params: ReturnParameters, timestampSeconds: number): string {
  if (secrets.length === 0) throw new Error('signReturn needs at least one secret');
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error('timestampSeconds must be a non-negative integer (Unix seconds)');
  }
  const content = returnSignedContent(params);
  return secrets
    .map((secret) => {
      const key = webhookKey(secret);
      if (!key) throw new Error('malformed webhook secret: expected whsec_<base64>');
      return `v1,${webhookSignature(key, 'return', String(timestampSeconds), content)}`;
    })
    .join(' ');
}

/**
 * Where a name appears more than once the LAST value counts: the gateway appends its parameters
 * after the merchant's own query, and PHP's $_GET reads them the same way.
 */
function lastValues(input: ReturnInput): (name: string) => string | undefined {
  if (typeof input === 'string' || input instanceof URL || input instanceof URLSearchParams) {
    let search: URLSearchParams;
    if (input instanceof URLSearchParams) search = input;
    else if (input instanceof URL) search = input.searchParams;
    else if (/^[a-z][a-z0-9+.-]*:/i.test(input)) search = new URL(input).searchParams;
    else search = new URLSearchParams(input.split('#', 1)[0]);
    return (name) => search.getAll(name).at(-1);
  }
  const record = input as Record<string, unknown>;
  return (name) => {
    const value = Object.hasOwn(record, name) ? record[name] : undefined;
    const last = Array.isArray(value) ? value.at(-1) : value;
    return typeof last === 'string' ? last : undefined;
  };
}

/**
 * Checks the parameters the customer's browser brought back to `returnUrl` against one secret
 * or several (during a rotation, pass both the new and the old one). `{ ok: true, params }` when
 * `ts` is within the tolerance and any `v1` signature in `signature` matches any secret
 * (constant-time compare); otherwise `{ ok: false, reason }`. Without a verified signature the
 * parameters are only what someone typed: confirm with the notification or /transaction/status.
 */
export function verifyReturn(
  input: ReturnInput,
  secrets: string | readonly string[],
  options: VerifyReturnOptions = {},
): VerifyReturnResult {
  const keys = keysOf(secrets);
  if (!Array.isArray(keys)) return keys;

  let read: (name: string) => string | undefined;
  try {
    read = lastValues(input);
  } catch {
    return { ok: false, reason: 'not a URL or query' };
  }
  const params = {} as ReturnParameters;
  for (const name of RETURN_SIGNED_PARAMETERS) {
    const value = read(name);
    if (value === undefined) return { ok: false, reason: `missing ${name} parameter` };
    params[name] = value;
  }
  const timestamp = read('ts');
  const signatures = read('signature') ?? '';
  if (timestamp === undefined) return { ok: false, reason: 'missing ts parameter' };
  if (!signatures.trim()) return { ok: false, reason: 'missing signature parameter' };
  // Digits only: Number() would accept " 1e9" and sign a different text.
  if (!/^\d{1,15}$/.test(timestamp)) return { ok: false, reason: 'malformed ts parameter' };
  const checked = checkSigned(keys, 'return', timestamp, signatures, returnSignedContent(params), options);
  return checked.ok ? { ok: true, params, timestamp: Number(timestamp) } : checked;
}
