// Satang (1/100 THB, what Thai QR and the banks' amounts carry) as bigint, and its text. The
// project's money is bigint 1/10,000 THB (domain/money.ts); no float touches an amount.
import { MINOR_PER_UNIT } from '../../domain/money.ts';

const MINOR_PER_SATANG = MINOR_PER_UNIT / 100n;

/** 10050n → "100.50". */
export function satangText(satang: bigint): string {
  const sign = satang < 0n ? '-' : '';
  const abs = satang < 0n ? -satang : satang;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

/** Satang → the project's 1/10,000 units (domain/thai-qr.ts formatThaiQrAmount takes those). */
export function satangToMinor(satang: bigint): bigint {
  return satang * MINOR_PER_SATANG;
}
