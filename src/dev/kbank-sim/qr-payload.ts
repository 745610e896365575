// The QR text KBank answers a create with (§4.3, decoded from KBank's own example): a dynamic
// Thai QR with the bill-payment account (tag 30: AID, biller id, the bank's two references) and
// KBank's transaction tag 31 (AID, acquirer "004", the same references as sub-tags 02 and 04),
// currency 764, the amount, country TH, no merchant name, CRC-16/CCITT-FALSE. The references are
// the bank's, not the partner's reference1: here `SIM` and a counter.
import { crc16CcittFalse, formatThaiQrAmount, THAI_BILL_PAYMENT_AID } from '../../domain/thai-qr.ts';
import { satangToMinor } from './amounts.ts';

export const KBANK_TRANSACTION_AID = 'A000000677010113';
export const KBANK_ACQUIRER_CODE = '004';

export type BankQrInput = { billerId: string; bankRef1: string; bankRef2: string; satang: bigint };

function tlv(tag: string, value: string): string {
  if (value.length === 0 || value.length > 99) throw new Error(`QR tag ${tag}: value length ${value.length}`);
  return tag + String(value.length).padStart(2, '0') + value;
}

/** The bank's references for the n-th QR (n from 1): `SIM00000001` and `SIM0000000001`. */
export function bankReferences(n: number): { bankRef1: string; bankRef2: string } {
  return { bankRef1: `SIM${String(n).padStart(8, '0')}`, bankRef2: `SIM${String(n).padStart(10, '0')}` };
}

export function buildBankQrPayload(input: BankQrInput): string {
  const billPayment =
    tlv('00', THAI_BILL_PAYMENT_AID) +
    tlv('01', input.billerId) +
    tlv('02', input.bankRef1) +
    tlv('03', input.bankRef2);
  const transaction =
    tlv('00', KBANK_TRANSACTION_AID) +
    tlv('01', KBANK_ACQUIRER_CODE) +
    tlv('02', input.bankRef1) +
    tlv('04', input.bankRef2);
  const body =
    tlv('00', '01') +
    tlv('01', '12') +
    tlv('30', billPayment) +
    tlv('31', transaction) +
    tlv('53', '764') +
    tlv('54', formatThaiQrAmount(satangToMinor(input.satang))) +
    tlv('58', 'TH');
  const withCrcHeader = body + '6304';
  return withCrcHeader + crc16CcittFalse(withCrcHeader);
}
