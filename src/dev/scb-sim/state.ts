// The bank's state (docs/connectors/scb-sim.md): access tokens on the simulator's clock, the QR
// codes created (v1: any number of payments, no expiry; v2: `numberOfTimes` payments before
// `expiryDate`), and the payments made, which the inquiry, the slip and the confirmations report.
// A second create with the same ref1 is another QR for the same references (SCB documents no
// idempotency). The rules answer plainly; api-routes.ts and control-routes.ts put them on the wire.
import { bangkokIso, BANGKOK_OFFSET_MS, type SimClock } from '../sim-kit/clock.ts';
import type { SeededIds } from '../sim-kit/ids.ts';
import { satangText } from '../sim-kit/satang.ts';
import type { SimConfig } from './config.ts';
import { maskAccount, type Payer } from './payer.ts';
import { buildScbQrPayload } from './qr-payload.ts';

export type QrRecord = {
  qrId: number;
  version: 'v1' | 'v2';
  billerId: string;
  ref1: string;
  ref2: string | null;
  ref3: string;
  /** null: the QR carries no amount; the payer enters it. */
  satang: bigint | null;
  /** v2: how many payments it takes (0: any number); null on v1. */
  numberOfTimes: number | null;
  /** v2: no payment at or after it; null: never expires. */
  expiresAt: number | null;
  qrRawData: string;
  createdAt: number;
  payments: number;
};

export type Payment = {
  transactionId: string;
  qrId: number | null;
  billerId: string;
  ref1: string;
  ref2: string | null;
  ref3: string | null;
  satang: bigint;
  paidAt: number;
  payer: Payer;
  /** true: a confirmation the bank made up for a reference nobody paid (the forged fault); never inquired. */
  forged: boolean;
};

export type CreateInput = Pick<
  QrRecord,
  'version' | 'ref1' | 'ref2' | 'ref3' | 'satang' | 'numberOfTimes' | 'expiresAt'
>;
export type PayInput = { satang?: bigint; payer: Payer };
export type PayOutcome = { ok: true; payment: Payment } | { ok: false; status: 400 | 404 | 409; reason: string };
export type TokenStatus = 'valid' | 'unknown' | 'expired';

/** A record as the control API and `state()` show it: JSON-safe, times in Asia/Bangkok. */
export type QrRecordView = Omit<QrRecord, 'satang' | 'createdAt' | 'expiresAt'> & {
  amount: string | null;
  createdAt: string;
  expiresAt: string | null;
};
export type PaymentView = Omit<Payment, 'satang' | 'paidAt'> & { amount: string; paidAt: string };

/** "2026-01-05" — the Asia/Bangkok date of an instant, as the inquiry's transactionDate names it. */
export function bangkokDate(at: number): string {
  return new Date(at + BANGKOK_OFFSET_MS).toISOString().slice(0, 10);
}

/** "2021-02-24T11:10:12+07:00": SCB's transactionDateandTime (seconds, Bangkok offset). */
export function scbDateTime(at: number): string {
  return bangkokIso(at).replace(/\.\d{3}\+/, '+');
}

export class SimState {
  readonly #config: SimConfig;
  readonly #clock: SimClock;
  readonly #ids: SeededIds;
  readonly #qrs: QrRecord[] = [];
  readonly #payments: Payment[] = [];
  readonly #tokens = new Map<string, { issuedAt: number; expiresAt: number }>();

  constructor(config: SimConfig, clock: SimClock, ids: SeededIds) {
    this.#config = config;
    this.#clock = clock;
    this.#ids = ids;
  }

  issueToken(): { accessToken: string; expiresIn: number; expiresAt: number } {
    const accessToken = this.#ids.alnum('access-token', 36);
    const issuedAt = this.#clock.now();
    const expiresIn = this.#config.tokenTtlSeconds;
    const expiresAt = issuedAt + expiresIn * 1000;
    this.#tokens.set(accessToken, { issuedAt, expiresAt });
    return { accessToken, expiresIn, expiresAt };
  }

  tokenStatus(accessToken: string): TokenStatus {
    const token = this.#tokens.get(accessToken);
    if (token === undefined) return 'unknown';
    return this.#clock.now() >= token.expiresAt ? 'expired' : 'valid';
  }

  /** Every token issued so far expires now (the expire-tokens fault); returns how many were valid. */
  expireTokens(): number {
    const now = this.#clock.now();
    let expired = 0;
    for (const token of this.#tokens.values())
      if (token.expiresAt > now) {
        token.expiresAt = now;
        expired++;
      }
    return expired;
  }

  createQr(input: CreateInput): QrRecord {
    const { billerId } = this.#config;
    const record: QrRecord = {
      ...input,
      qrId: this.#qrs.length + 1,
      billerId,
      qrRawData: buildScbQrPayload({ billerId, ...input }),
      createdAt: this.#clock.now(),
      payments: 0,
    };
    this.#qrs.push(record);
    return record;
  }

  /** The QR a payer scans: by its exact text, or the latest created with `ref1`. */
  findQr(by: { ref1?: string; qrRawData?: string }): QrRecord | undefined {
    for (let i = this.#qrs.length - 1; i >= 0; i--) {
      const qr = this.#qrs[i]!;
      if (by.qrRawData !== undefined ? qr.qrRawData === by.qrRawData : qr.ref1 === by.ref1) return qr;
    }
    return undefined;
  }

  /**
   * The customer pays `qr`: refused when it expired (v2 expiryDate), when it was paid
   * numberOfTimes times already, or for another amount than the QR's (one without an amount
   * takes what the payer enters, which must then be given).
   */
  pay(qr: QrRecord, input: PayInput): PayOutcome {
    const now = this.#clock.now();
    if (qr.expiresAt !== null && now >= qr.expiresAt)
      return { ok: false, status: 409, reason: `the QR expired at ${bangkokIso(qr.expiresAt)}` };
    if (qr.numberOfTimes !== null && qr.numberOfTimes > 0 && qr.payments >= qr.numberOfTimes)
      return { ok: false, status: 409, reason: `the QR was already paid ${qr.payments} of ${qr.numberOfTimes} times` };
    if (qr.satang === null && input.satang === undefined)
      return { ok: false, status: 400, reason: 'the QR has no amount: give amount' };
    if (qr.satang !== null && input.satang !== undefined && input.satang !== qr.satang)
      return {
        ok: false,
        status: 409,
        reason: `the QR is for ${satangText(qr.satang)} THB; its amount cannot be changed`,
      };
    qr.payments++;
    const payment: Payment = {
      transactionId: this.#transactionId(),
      qrId: qr.qrId,
      billerId: qr.billerId,
      ref1: qr.ref1,
      ref2: qr.ref2,
      ref3: qr.ref3,
      satang: (qr.satang ?? input.satang)!,
      paidAt: now,
      payer: input.payer,
      forged: false,
    };
    this.#payments.push(payment);
    return { ok: true, payment };
  }

  /** A payment nobody made, for a forged confirmation: kept for the log, never found by the inquiry. */
  forge(input: { ref1: string; ref2: string | null; ref3: string | null; satang: bigint; payer: Payer }): Payment {
    const payment: Payment = {
      ...input,
      transactionId: this.#transactionId(),
      qrId: null,
      billerId: this.#config.billerId,
      paidAt: this.#clock.now(),
      forged: true,
    };
    this.#payments.push(payment);
    return payment;
  }

  /** The inquiry: real payments to `billerId` with `ref1`, paid on `date` (Asia/Bangkok), then the optional filters. */
  inquire(query: { billerId: string; ref1: string; date: string; ref2?: string; satang?: bigint }): Payment[] {
    return this.#payments.filter(
      (p) =>
        !p.forged &&
        p.billerId === query.billerId &&
        p.ref1 === query.ref1 &&
        bangkokDate(p.paidAt) === query.date &&
        (query.ref2 === undefined || p.ref2 === query.ref2) &&
        (query.satang === undefined || p.satang === query.satang),
    );
  }

  payment(transactionId: string): Payment | undefined {
    return this.#payments.find((p) => p.transactionId === transactionId && !p.forged);
  }

  /** Any payment, forged ones too (the control API re-sends their confirmations). */
  anyPayment(transactionId: string): Payment | undefined {
    return this.#payments.find((p) => p.transactionId === transactionId);
  }

  qrs(): QrRecordView[] {
    return this.#qrs.map(({ satang, createdAt, expiresAt, ...rest }) => ({
      ...rest,
      amount: satang === null ? null : satangText(satang),
      createdAt: bangkokIso(createdAt),
      expiresAt: expiresAt === null ? null : bangkokIso(expiresAt),
    }));
  }

  payments(): PaymentView[] {
    return this.#payments.map(paymentView);
  }

  tokenCount(): number {
    return this.#tokens.size;
  }

  /** A uuid-shaped id from the seed (SCB's transactionId looks like one). */
  #transactionId(): string {
    const hex = this.#ids.hex('transaction-id', 32);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
  }
}

export function paymentView({ satang, paidAt, ...rest }: Payment): PaymentView {
  return { ...rest, amount: satangText(satang), paidAt: bangkokIso(paidAt) };
}

/** The record SCB's confirmation, inquiry and slip carry for a payment (docs/connectors/scb.md). */
export function transactionRecord(config: SimConfig, payment: Payment): Record<string, string> {
  const { payer } = payment;
  const account = payer.masked ? maskAccount(payer.accountNumber) : payer.accountNumber;
  return {
    transactionId: payment.transactionId,
    amount: satangText(payment.satang),
    transactionDateandTime: scbDateTime(payment.paidAt),
    currencyCode: '764',
    transactionType: 'Domestic Transfers',
    payeeProxyId: payment.billerId,
    payeeProxyType: 'BILLERID',
    payeeAccountNumber: config.payeeAccountNumber,
    payeeName: config.payeeName,
    payerProxyId: account,
    payerProxyType: 'ACCOUNT',
    payerName: payer.name,
    payerAccountNumber: account,
    billPaymentRef1: payment.ref1,
    billPaymentRef2: payment.ref2 ?? '',
    billPaymentRef3: payment.ref3 ?? '',
    sendingBankCode: payer.bankCode,
    receivingBankCode: '014',
    channelCode: 'PMH',
  };
}
