// The error shape every merchant operation answers with (docs/api.md "Initiation", "Errors"):
// checked in one place so each error test also proves the body is complete and leaks nothing.
import assert from 'node:assert/strict';

export const INITIATION_KEYS = [
  'type',
  'result',
  'responsecode',
  'trackid',
  'merchantid',
  'redirectUrl',
  'token',
  'transactionid',
  'error_code_tag',
  'error_text',
] as const;

export const STATUS_KEYS = [
  ...INITIATION_KEYS,
  'bill_amount',
  'bill_currencycode',
  'created_at',
  'completed_at',
  'refunded_amount',
] as const;

export type ExpectedError = {
  status: number;
  code: string;
  tag: string;
  /** A field the error_text must name, e.g. `bill_amount`. */
  field?: string;
  /** What trackid / merchantid must echo (null when the request did not carry them). */
  trackid?: string | null;
  merchantid?: string | null;
  shape?: 'initiation' | 'status';
};

type Response = { status: number; headers: Record<string, unknown>; body: Record<string, any>; raw: string };

/** Stack frames, file paths or error class names: none may reach a merchant. */
export function assertNoInternals(raw: string): void {
  assert.doesNotMatch(
    raw,
    /\bat [\w.<>]+ \(|\bat (file|node):|\.ts:\d+|\.js:\d+|node_modules|\/work\/|TypeError|ReferenceError|\bstack\b/i,
  );
}

export function assertErrorBody(res: Response, expected: ExpectedError): void {
  const context = `${res.status} ${res.raw}`;
  assert.equal(res.status, expected.status, context);
  assert.match(String(res.headers['content-type']), /^application\/json/, context);
  const keys = expected.shape === 'status' ? STATUS_KEYS : INITIATION_KEYS;
  assert.deepEqual(Object.keys(res.body).sort(), [...keys].sort(), context);
  assert.equal(res.body.type, 'error', context);
  assert.equal(res.body.result, 'Not Successful', context);
  assert.equal(typeof res.body.responsecode, 'string', context);
  assert.equal(res.body.responsecode, expected.code, context);
  assert.equal(res.body.error_code_tag, expected.tag, context);
  assert.equal(typeof res.body.error_text, 'string', context);
  assert.ok(res.body.error_text.length > 10, context);
  if (expected.field !== undefined)
    assert.ok(res.body.error_text.includes(expected.field), `error_text should name '${expected.field}': ${context}`);
  assert.equal(res.body.redirectUrl, null, context);
  assert.equal(res.body.token, null, context);
  if (expected.shape !== 'status') assert.equal(res.body.transactionid, null, context);
  if (expected.trackid !== undefined) assert.equal(res.body.trackid, expected.trackid, context);
  if (expected.merchantid !== undefined) assert.equal(res.body.merchantid, expected.merchantid, context);
  assertNoInternals(res.raw);
}
