// The QR text an SCB create answers (qrRawData): a dynamic, merchant-presented EMV Thai QR for
// bill payment (docs/connectors/scb.md): tag 30 with the bill-payment AID, the biller id (01),
// ref1 (02) and ref2 (03); currency 764, the amount (54; left out for a QR without one, which the
// payer's app then asks for), country TH, ref3 as the terminal label (62, sub-tag 07), and the
// CRC-16/CCITT in 63. domain/thai-qr.ts has the CRC, the amount text and the verifier; its
// builder has no tag 62 and needs an amount, hence this one.
import { crc16CcittFalse, formatThaiQrAmount, THAI_BILL_PAYMENT_AID } from '../../domain/thai-qr.ts';
import { satangToMinor } from '../sim-kit/satang.ts';

export type ScbQrInput = { billerId: string; ref1: string; ref2: string | null; ref3: string; satang: bigint | null };

function tlv(tag: string, value: string): string {
  if (value.length === 0 || value.length > 99) throw new Error(`QR tag ${tag}: value length ${value.length}`);
  return tag + String(value.length).padStart(2, '0') + value;
}

export function buildScbQrPayload(input: ScbQrInput): string {
  const billPayment =
    tlv('00', THAI_BILL_PAYMENT_AID) +
    tlv('01', input.billerId) +
    tlv('02', input.ref1) +
    (input.ref2 === null ? '' : tlv('03', input.ref2));
  const body =
    tlv('00', '01') +
    tlv('01', '12') +
    tlv('30', billPayment) +
    tlv('53', '764') +
    (input.satang === null ? '' : tlv('54', formatThaiQrAmount(satangToMinor(input.satang)))) +
    tlv('58', 'TH') +
    tlv('62', tlv('07', input.ref3));
  const withCrcHeader = body + '6304';
  return withCrcHeader + crc16CcittFalse(withCrcHeader);
}

/**
 * qrImage: SCB answers a base64 PNG of the code. The simulator answers a fixed 1×1 PNG: a
 * connector that shows the QR draws it from qrRawData (docs/connectors/scb-sim.md).
 */
export const QR_IMAGE_STUB =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGP4DwABAQEAG7buVgAAAABJRU5ErkJggg==';
