// Exact money. Amounts are bigint counts of 1/10,000 of a currency unit ("minor" below);
// decimal text is parsed and printed with string and bigint arithmetic only.
export const MINOR_DIGITS = 4;
export const MINOR_PER_UNIT = 10_000n;

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;
// Long enough for every finite double written out in full (1.7976931348623157e308 has 309
// integer digits, 5e-324 has 324 fraction digits), so a huge JSON number is "too high", not
// "not a number"; short enough that BigInt() never works on attacker-sized input.
const MAX_DECIMAL_TEXT = 400;

export type ParsedDecimal = {
  minor: bigint;
  /** Fraction digits after dropping trailing zeros: `150.50` has 1, `99.999` has 3. */
  significantFractionDigits: number;
};

/** Parses `^\d+(\.\d+)?$` exactly. Returns null for anything else or more than 4 significant fraction digits. */
export function parseDecimal(text: string): ParsedDecimal | null {
  if (text.length === 0 || text.length > MAX_DECIMAL_TEXT) return null;
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const whole = match[1] ?? '0';
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > MINOR_DIGITS) {
    return { minor: -1n, significantFractionDigits: fraction.length };
  }
  const minor = BigInt(whole) * MINOR_PER_UNIT + BigInt(fraction.padEnd(MINOR_DIGITS, '0'));
  return { minor, significantFractionDigits: fraction.length };
}

/**
 * The decimal text of a JSON number, by its shortest round-trip form (ECMAScript's
 * Number::toString), with any exponent expanded by moving the decimal point in the
 * digit string — no arithmetic on the float. Negative, NaN and infinite give null.
 */
export function numberToDecimalText(value: number): string | null {
  if (!Number.isFinite(value) || value < 0) return null;
  if (value === 0) return '0'; // also -0
  const text = String(value);
  const exp = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!exp) return text;
  const digits = (exp[1] ?? '') + (exp[2] ?? '');
  const pointAt = (exp[1] ?? '').length + Number(exp[3]);
  if (pointAt <= 0) return `0.${'0'.repeat(-pointAt)}${digits}`;
  if (pointAt >= digits.length) return digits + '0'.repeat(pointAt - digits.length);
  return `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}

/** Prints minor units with exactly `fractionDigits` digits (0–4). Refuses to round. */
export function formatMinor(minor: bigint, fractionDigits: number): string {
  if (!Number.isInteger(fractionDigits) || fractionDigits < 0 || fractionDigits > MINOR_DIGITS) {
    throw new RangeError(`fractionDigits must be 0..${MINOR_DIGITS}`);
  }
  const negative = minor < 0n;
  const abs = negative ? -minor : minor;
  const whole = abs / MINOR_PER_UNIT;
  const fraction = (abs % MINOR_PER_UNIT).toString().padStart(MINOR_DIGITS, '0');
  if (/[^0]/.test(fraction.slice(fractionDigits))) {
    throw new RangeError(`${minor} minor units cannot be printed with ${fractionDigits} fraction digits`);
  }
  const shown = fractionDigits > 0 ? `${whole}.${fraction.slice(0, fractionDigits)}` : `${whole}`;
  return negative ? `-${shown}` : shown;
}

/** Groups thousands for display: 1000000.00 → 1,000,000.00 */
export function groupThousands(decimalText: string): string {
  const [whole = '', fraction] = decimalText.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** ISO 4217 minor-unit exponents for the currencies a payout account may use; default 2. */
const CURRENCY_EXPONENT: Record<string, number> = {
  BHD: 3,
  CLP: 0,
  IQD: 3,
  ISK: 0,
  JOD: 3,
  JPY: 0,
  KRW: 0,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  PYG: 0,
  TND: 3,
  UGX: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
};

export function currencyExponent(currency: string): number {
  return CURRENCY_EXPONENT[currency] ?? 2;
}

export const CURRENCY_CODE = /^[A-Z]{3}$/;

/** Half-even rounding of `minor * numerator / denominator` (all non-negative), exact. */
export function mulDivHalfEven(minor: bigint, numerator: bigint, denominator: bigint): bigint {
  if (minor < 0n || numerator < 0n || denominator <= 0n)
    throw new RangeError('mulDivHalfEven takes non-negative values');
  const product = minor * numerator;
  const quotient = product / denominator;
  const twiceRemainder = (product % denominator) * 2n;
  if (twiceRemainder > denominator) return quotient + 1n;
  if (twiceRemainder < denominator) return quotient;
  return quotient % 2n === 0n ? quotient : quotient + 1n;
}
