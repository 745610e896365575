// Exact THB amounts. A request's `txnAmount` is a JSON number; its value is read from the
// number's shortest round-trip text (domain/money.ts numberToDecimalText: what the sender wrote,
// for any amount a client can mean) and kept as bigint satang. No float arithmetic.
import { MINOR_PER_UNIT, numberToDecimalText, parseDecimal } from '../../domain/money.ts';
import { satangText } from '../sim-kit/satang.ts';
import { JsonDecimal } from '../sim-kit/wire-json.ts';

export { satangText, satangToMinor } from '../sim-kit/satang.ts';

/** Tag 54 holds at most 13 characters: 9999999999.99 THB. */
export const MAX_QR_SATANG = 999_999_999_999n;
const MINOR_PER_SATANG = MINOR_PER_UNIT / 100n;

export type AmountCheck = { ok: true; satang: bigint } | { ok: false; code: 'EMITA' | 'EMITF' };

function fromDecimalText(text: string | null): AmountCheck {
  if (text === null) return { ok: false, code: 'EMITA' };
  const parsed = parseDecimal(text);
  if (parsed === null) return { ok: false, code: 'EMITA' };
  if (parsed.minor === 0n) return { ok: false, code: 'EMITA' };
  if (parsed.significantFractionDigits > 2) return { ok: false, code: 'EMITF' };
  const satang = parsed.minor / MINOR_PER_SATANG;
  return satang > MAX_QR_SATANG ? { ok: false, code: 'EMITA' } : { ok: true, satang };
}

/**
 * A request's `txnAmount`: a JSON number, positive (else EMITA), at most two decimals (else
 * EMITF), at most 9999999999.99. A string is refused (EMITA): KBank documents a number.
 */
export function parseTxnAmount(value: unknown): AmountCheck {
  return typeof value === 'number' ? fromDecimalText(numberToDecimalText(value)) : { ok: false, code: 'EMITA' };
}

/** The control API's amounts: a JSON number or a decimal string ("100.50"), same rules. */
export function parseAmountInput(value: unknown): AmountCheck {
  if (typeof value === 'string') return fromDecimalText(value.trim());
  return parseTxnAmount(value);
}

/** 10050n → the JSON number token 100.50. */
export function satangNumber(satang: bigint): JsonDecimal {
  return new JsonDecimal(satangText(satang));
}
