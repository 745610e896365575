// Thai QR payment payload (EMVCo merchant-presented mode, Thai "bill payment" profile).
//
// The payload is a flat string of TLV fields: 2-digit tag, 2-digit decimal length,
// value. Tag 30 nests its own TLV list. The last field is always the CRC (tag 63),
// computed over everything before its value, including the literal "6304".
//
// Pure: no I/O, no clock, no randomness — the same input always yields the same string,
// so a payload can be rebuilt later for display or dispute handling.

/** AID that marks tag 30 as a Thai bill-payment (cross-bank) account. */
export const THAI_BILL_PAYMENT_AID = 'A000000677010112';

import { parseDecimal } from './money.ts';

const PAYLOAD_FORMAT = '01';
// "12" = dynamic: the code carries a per-transaction amount/reference and is used once.
const POINT_OF_INITIATION_DYNAMIC = '12';
const CURRENCY_THB = '764'; // ISO 4217 numeric
const COUNTRY_TH = 'TH';
const MERCHANT_NAME_MAX = 25;
// EMVCo caps tag 54 at 13 characters (e.g. "9999999999.99").
const AMOUNT_MAX_CHARS = 13;

// Thai bill payment references: upper-case Latin letters and digits only, ≤ 20 chars.
// Banks reject lower case and punctuation, so we refuse them rather than silently fix.
const REFERENCE_RE = /^[0-9A-Z]{1,20}$/;
// Biller id = 13-digit tax id + 2-digit suffix assigned by the sponsoring bank.
const BILLER_ID_RE = /^[0-9]{15}$/;

export interface ThaiQrInput {
  billerId: string;
  reference1: string;
  reference2?: string;
  /** Amount in 1/10,000 THB; must be a whole number of satang (divisible by 100). */
  amountMinor: bigint;
  merchantName?: string;
  /**
   * Tag 62 sub-tag 07 (terminal label): SCB's reference 3, the prefix by which SCB routes the
   * payment's confirmation to the partner (docs/connectors/scb.md "QR modes").
   */
  terminalLabel?: string;
}

export interface TlvField {
  tag: string;
  value: string;
}

export interface ThaiQrVerification {
  /** True only if the TLV structure, the fixed header/trailer and the CRC are all valid. */
  ok: boolean;
  /** Top-level tag -> value (the last occurrence wins if a tag repeats; that is also an error). */
  fields: Record<string, string>;
  /** Sub-fields of tag 30 (AID, biller id, references), empty if tag 30 is absent/malformed. */
  billPayment: Record<string, string>;
  crc: { declared: string | null; computed: string | null };
  errors: string[];
}

/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no xorout) over UTF-8 bytes. */
export function crc16CcittFalse(text: string): string {
  let crc = 0xffff;
  for (const byte of new TextEncoder().encode(text)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

function tlv(tag: string, value: string): string {
  if (value.length === 0 || value.length > 99) {
    throw new Error(`Thai QR: tag ${tag} value length ${value.length} is outside 1..99`);
  }
  return tag + String(value.length).padStart(2, '0') + value;
}

/** 1/10,000 THB -> "1234.50". Integer arithmetic only so no amount is ever rounded. */
export function formatThaiQrAmount(amountMinor: bigint): string {
  if (amountMinor <= 0n) {
    throw new Error(`Thai QR: amount must be positive, got ${amountMinor} (1/10,000 THB)`);
  }
  if (amountMinor % 100n !== 0n) {
    throw new Error(
      `Thai QR: amount ${amountMinor} (1/10,000 THB) is not a whole number of satang; ` +
        'Thai QR amounts carry exactly 2 decimal places',
    );
  }
  const satang = amountMinor / 100n;
  const text = `${satang / 100n}.${String(satang % 100n).padStart(2, '0')}`;
  if (text.length > AMOUNT_MAX_CHARS) {
    throw new Error(`Thai QR: amount ${text} exceeds the ${AMOUNT_MAX_CHARS}-character limit of tag 54`);
  }
  return text;
}

/**
 * Tag 59 must be plain ASCII ("common character set") and ≤ 25 chars. Accents are
 * folded (é -> e); anything else non-printable or non-ASCII (e.g. Thai script) is
 * dropped, because a scanner that mis-decodes the name could reject the whole code.
 * Returns "" when nothing usable is left, in which case the tag is omitted.
 */
export function sanitiseMerchantName(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/[^\x20-\x7E]/g, '')
    .replace(/ {2,}/g, ' ')
    .trim();
  return ascii.slice(0, MERCHANT_NAME_MAX).trimEnd();
}

function checkReference(label: string, value: string): void {
  if (!REFERENCE_RE.test(value)) {
    throw new Error(`Thai QR: ${label} must be 1-20 characters of A-Z and 0-9, got ${JSON.stringify(value)}`);
  }
}

export function buildThaiQrPayload(input: ThaiQrInput): string {
  if (!BILLER_ID_RE.test(input.billerId)) {
    throw new Error(
      `Thai QR: billerId must be 15 digits (13-digit tax id + 2-digit suffix), got ${JSON.stringify(input.billerId)}`,
    );
  }
  checkReference('reference1', input.reference1);
  if (input.reference2 !== undefined) checkReference('reference2', input.reference2);
  if (input.terminalLabel !== undefined) checkReference('terminalLabel', input.terminalLabel);
  const amount = formatThaiQrAmount(input.amountMinor);

  const merchantAccount =
    tlv('00', THAI_BILL_PAYMENT_AID) +
    tlv('01', input.billerId) +
    tlv('02', input.reference1) +
    (input.reference2 !== undefined ? tlv('03', input.reference2) : '');

  const name = input.merchantName === undefined ? '' : sanitiseMerchantName(input.merchantName);

  const body =
    tlv('00', PAYLOAD_FORMAT) +
    tlv('01', POINT_OF_INITIATION_DYNAMIC) +
    tlv('30', merchantAccount) +
    tlv('53', CURRENCY_THB) +
    tlv('54', amount) +
    tlv('58', COUNTRY_TH) +
    (name !== '' ? tlv('59', name) : '') +
    (input.terminalLabel !== undefined ? tlv('62', tlv('07', input.terminalLabel)) : '');

  // The CRC covers its own tag and length ("6304"), so those are appended first.
  const withCrcHeader = body + '6304';
  return withCrcHeader + crc16CcittFalse(withCrcHeader);
}

/** Split one TLV level. Throws on any structural problem (bad tag/length, truncation). */
export function parseTlv(payload: string): TlvField[] {
  const fields: TlvField[] = [];
  let pos = 0;
  while (pos < payload.length) {
    const header = payload.slice(pos, pos + 4);
    if (!/^[0-9]{4}$/.test(header)) {
      throw new Error(`TLV: expected 2-digit tag and 2-digit length at offset ${pos}, got ${JSON.stringify(header)}`);
    }
    const tag = header.slice(0, 2);
    const length = Number(header.slice(2));
    const start = pos + 4;
    if (start + length > payload.length) {
      throw new Error(
        `TLV: tag ${tag} at offset ${pos} declares length ${length} but only ${payload.length - start} chars remain`,
      );
    }
    fields.push({ tag, value: payload.slice(start, start + length) });
    pos = start + length;
  }
  return fields;
}

/**
 * Structural + CRC check of a Thai QR payload. Never throws: problems are collected
 * in `errors` so this can be pointed at any string a customer or bank sends back.
 */
export function verifyThaiQrPayload(payload: string): ThaiQrVerification {
  const result: ThaiQrVerification = {
    ok: false,
    fields: {},
    billPayment: {},
    crc: { declared: null, computed: null },
    errors: [],
  };

  let top: TlvField[];
  try {
    top = parseTlv(payload);
  } catch (err) {
    result.errors.push((err as Error).message);
    return result;
  }

  for (const { tag, value } of top) {
    if (tag in result.fields) result.errors.push(`tag ${tag} appears more than once`);
    result.fields[tag] = value;
  }

  if (top[0]?.tag !== '00' || top[0].value !== PAYLOAD_FORMAT) {
    result.errors.push('first field must be tag 00 with value "01"');
  }

  const last = top[top.length - 1];
  if (last?.tag !== '63' || last.value.length !== 4) {
    result.errors.push('last field must be tag 63 (CRC) with a 4-character value');
  } else {
    result.crc.declared = last.value;
    result.crc.computed = crc16CcittFalse(payload.slice(0, -4));
    // Scanners in the wild emit lower-case hex too; the value, not the case, matters.
    if (result.crc.declared.toUpperCase() !== result.crc.computed) {
      result.errors.push(`CRC mismatch: declared ${result.crc.declared}, computed ${result.crc.computed}`);
    }
  }

  const account = result.fields['30'];
  if (account === undefined) {
    result.errors.push('tag 30 (bill payment merchant account) is missing');
  } else {
    try {
      for (const { tag, value } of parseTlv(account)) result.billPayment[tag] = value;
      if (result.billPayment['00'] !== THAI_BILL_PAYMENT_AID) {
        result.errors.push(`tag 30 AID is not ${THAI_BILL_PAYMENT_AID}`);
      }
    } catch (err) {
      result.errors.push(`tag 30: ${(err as Error).message}`);
    }
  }

  result.ok = result.errors.length === 0;
  return result;
}

const UUID_V7_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const REFERENCE_LENGTH = 20;
// 36^20 ≈ 2^103.4, so 20 base-36 characters hold 103 bits: 48 timestamp + 55 others.
const FOLDED_RANDOM_BITS = 55n;

/**
 * Deterministic bill-payment reference (exactly 20 chars, 0-9A-Z) for a UUIDv7.
 *
 * Why not just 20 hex chars of the id: hex wastes the alphabet. A 20-char slice keeps
 * either a truncated timestamp (which wraps — 9 hex chars of ms repeat every ~2.2
 * years) or fewer random bits. Base 36 fits 103 bits in the same 20 chars, enough for:
 *   - the full 48-bit ms timestamp, so two references can only collide if their
 *     transactions were created in the same millisecond (and never wrap before 10889 AD);
 *   - 55 bits that separate ids within that millisecond: the 74 non-constant bits
 *     after the timestamp XOR-folded to 55, so every one of them still influences
 *     the result. That matters because RFC 9562 generators may put a counter or
 *     sub-ms clock in rand_a (e.g. PostgreSQL 18) or increment low rand_b bits; a
 *     plain slice could discard exactly the bits that differ. For random bits, k ids in
 *     one ms collide with probability ≈ k²/2^56 (1,000 ids in one ms: ~1e-11).
 * Big-endian packing plus fixed width also keeps references sortable by creation time.
 */
export function thaiQrReferenceFor(transactionId: string): string {
  if (!UUID_V7_RE.test(transactionId)) {
    throw new Error(`Thai QR reference: ${JSON.stringify(transactionId)} is not a UUIDv7`);
  }
  const hex = transactionId.replace(/-/g, '');
  const timestamp = BigInt('0x' + hex.slice(0, 12));
  const randA = BigInt('0x' + hex.slice(13, 16)); // skips version nibble at index 12
  const randB = BigInt('0x' + hex.slice(16)) & ((1n << 62n) - 1n); // drops 2 variant bits
  // rand_a (12 bits) + rand_b (62 bits): everything after the timestamp that isn't constant.
  const random74 = (randA << 62n) | randB;
  const foldMask = (1n << FOLDED_RANDOM_BITS) - 1n;
  const folded = (random74 & foldMask) ^ (random74 >> FOLDED_RANDOM_BITS);
  const packed = (timestamp << FOLDED_RANDOM_BITS) | folded;
  // toString(36) gives lower case; references must be upper case.
  return packed.toString(36).toUpperCase().padStart(REFERENCE_LENGTH, '0');
}

/**
 * Whether a verified payload asks for exactly `amountMinor` (1/10,000) in baht: tag 53 is 764 and
 * tag 54 parses to the same amount. A processor's QR is checked with it before anyone sees it.
 */
export function thaiQrIsFor(verification: ThaiQrVerification, amountMinor: bigint): boolean {
  if (!verification.ok || verification.fields['53'] !== CURRENCY_THB) return false;
  const amount = verification.fields['54'];
  if (amount === undefined) return false;
  const parsed = parseDecimal(amount);
  return parsed !== null && parsed.significantFractionDigits <= 2 && parsed.minor === amountMinor;
}
