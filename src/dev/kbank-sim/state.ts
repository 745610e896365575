// The bank's state: access tokens, consumed partnerTxnUids, and QR records moving through
// REQUESTED → PAID → VOIDED, REQUESTED → CANCELLED, REQUESTED → EXPIRED (§4.10), with settlement
// closing a payment's void window. Time-driven changes (a QR's 10-minute expiry, the daily
// automatic settlement) are applied lazily, on the injected clock, whenever a record is read; no
// timer runs. The rules answer with the bank's errors; api-routes.ts puts them on the wire.
import { satangText } from './amounts.ts';
import { bangkokDay, bangkokInstant, bangkokIso, bangkokMinute, type SimClock } from '../sim-kit/clock.ts';
import type { Partner, SimConfig } from './config.ts';
import { bankError, type BankError } from './errors.ts';
import type { SeededIds } from '../sim-kit/ids.ts';
import { bankReferences, buildBankQrPayload } from './qr-payload.ts';

export type QrStatus = 'REQUESTED' | 'PAID' | 'CANCELLED' | 'EXPIRED' | 'VOIDED';

export type QrRecord = {
  partnerTxnUid: string;
  partnerId: string;
  merchantId: string;
  terminalId: string | null;
  qrType: '3';
  satang: bigint;
  currency: 'THB';
  reference1: string;
  reference2: string | null;
  reference3: string | null;
  reference4: string | null;
  metadata: string | null;
  qrCode: string;
  bankRef1: string;
  bankRef2: string;
  status: QrStatus;
  createdAt: number;
  expiresAt: number;
  paidAt: number | null;
  txnNo: string | null;
  loyaltyId: string | null;
  cancelledAt: number | null;
  expiredAt: number | null;
  voidedAt: number | null;
  settledAt: number | null;
};

export type CreateInput = Pick<
  QrRecord,
  | 'partnerTxnUid'
  | 'merchantId'
  | 'terminalId'
  | 'satang'
  | 'reference1'
  | 'reference2'
  | 'reference3'
  | 'reference4'
  | 'metadata'
> & { partner: Partner };

export type TokenStatus = 'valid' | 'unknown' | 'expired';
export type Outcome = { ok: true } | { ok: false; error: BankError };
export type PayOutcome = { ok: true; record: QrRecord } | { ok: false; status: 404 | 409; reason: string };
export type Settlement = { count: number; satang: bigint; partnerTxnUids: string[] };

/** A record as the control API and `state()` show it: JSON-safe, times in Asia/Bangkok. */
export type QrRecordView = Omit<
  QrRecord,
  'satang' | 'createdAt' | 'expiresAt' | 'paidAt' | 'cancelledAt' | 'expiredAt' | 'voidedAt' | 'settledAt'
> & {
  amount: string;
  settled: boolean;
  createdAt: string;
  expiresAt: string;
  paidAt: string | null;
  cancelledAt: string | null;
  expiredAt: string | null;
  voidedAt: string | null;
  settledAt: string | null;
};

const key = (partnerId: string, uid: string) => `${partnerId}\u0000${uid}`;
const iso = (at: number | null) => (at === null ? null : bangkokIso(at));

/** Manual settlement is refused between 22:00 and 02:30 Asia/Bangkok (EMSMSG). */
const SETTLEMENT_BLACKOUT = { from: 22 * 60, to: 2 * 60 + 30 };

export class SimState {
  readonly #config: SimConfig;
  readonly #clock: SimClock;
  readonly #ids: SeededIds;
  readonly #records = new Map<string, QrRecord>();
  readonly #consumed = new Set<string>();
  readonly #tokens = new Map<string, { consumerId: string; issuedAt: number; expiresAt: number }>();
  #qrCount = 0;

  constructor(config: SimConfig, clock: SimClock, ids: SeededIds) {
    this.#config = config;
    this.#clock = clock;
    this.#ids = ids;
  }

  issueToken(consumerId: string): { accessToken: string; expiresIn: number } {
    const accessToken = this.#ids.alnum('access-token', 28);
    const issuedAt = this.#clock.now();
    const expiresIn = this.#config.tokenTtlSeconds;
    this.#tokens.set(accessToken, { consumerId, issuedAt, expiresAt: issuedAt + expiresIn * 1000 });
    return { accessToken, expiresIn };
  }

  tokenStatus(accessToken: string): TokenStatus {
    const token = this.#tokens.get(accessToken);
    if (token === undefined) return 'unknown';
    return this.#clock.now() >= token.expiresAt ? 'expired' : 'valid';
  }

  /** Marks a partner's request id used; false when it was used before (EMDR). */
  consumeUid(partnerId: string, uid: string): boolean {
    const k = key(partnerId, uid);
    if (this.#consumed.has(k)) return false;
    this.#consumed.add(k);
    return true;
  }

  createQr(input: CreateInput): QrRecord {
    const now = this.#clock.now();
    const { bankRef1, bankRef2 } = bankReferences(++this.#qrCount);
    const record: QrRecord = {
      partnerTxnUid: input.partnerTxnUid,
      partnerId: input.partner.partnerId,
      merchantId: input.merchantId,
      terminalId: input.terminalId,
      qrType: '3',
      satang: input.satang,
      currency: 'THB',
      reference1: input.reference1,
      reference2: input.reference2,
      reference3: input.reference3,
      reference4: input.reference4,
      metadata: input.metadata,
      qrCode: buildBankQrPayload({ billerId: input.partner.billerId, bankRef1, bankRef2, satang: input.satang }),
      bankRef1,
      bankRef2,
      status: 'REQUESTED',
      createdAt: now,
      expiresAt: now + this.#config.qrTtlSeconds * 1000,
      paidAt: null,
      txnNo: null,
      loyaltyId: null,
      cancelledAt: null,
      expiredAt: null,
      voidedAt: null,
      settledAt: null,
    };
    this.#records.set(key(record.partnerId, record.partnerTxnUid), record);
    return record;
  }

  /** The partner's QR for `merchantId` created with `uid`, brought up to the clock; undefined if none. */
  lookup(partnerId: string, merchantId: string, uid: string): QrRecord | undefined {
    const record = this.#records.get(key(partnerId, uid));
    return record?.merchantId === merchantId ? this.#refresh(record) : undefined;
  }

  /** The QR created with `uid` by any partner (the control API's view); 'ambiguous' if two partners used it. */
  find(uid: string, partnerId?: string): QrRecord | undefined | 'ambiguous' {
    const found = [...this.#records.values()].filter(
      (r) => r.partnerTxnUid === uid && (partnerId === undefined || r.partnerId === partnerId),
    );
    if (found.length > 1) return 'ambiguous';
    return found[0] === undefined ? undefined : this.#refresh(found[0]);
  }

  cancel(record: QrRecord): Outcome {
    switch (record.status) {
      case 'REQUESTED':
        record.status = 'CANCELLED';
        record.cancelledAt = this.#clock.now();
        return { ok: true };
      case 'PAID':
        return { ok: false, error: bankError('EMQRP') };
      case 'CANCELLED':
        return { ok: false, error: bankError('EMQRC') };
      case 'EXPIRED':
        return { ok: false, error: bankError('EMQRE') };
      case 'VOIDED':
        return { ok: false, error: this.#config.placeholderErrors.cancelVoided };
    }
  }

  /** A void is accepted for a PAID, unsettled payment of today (Asia/Bangkok) before the cut-off. */
  void(record: QrRecord): Outcome {
    const placeholders = this.#config.placeholderErrors;
    switch (record.status) {
      case 'REQUESTED':
        return { ok: false, error: placeholders.voidUnpaid };
      case 'CANCELLED':
        return { ok: false, error: bankError('EMQRC') };
      case 'EXPIRED':
        return { ok: false, error: bankError('EMQRE') };
      case 'VOIDED':
        return { ok: false, error: placeholders.voidVoided };
      case 'PAID':
        break;
    }
    const now = this.#clock.now();
    if (record.settledAt !== null) return { ok: false, error: bankError('EMSET') };
    if (bangkokDay(record.paidAt!) !== bangkokDay(now)) return { ok: false, error: placeholders.voidOverTheDay };
    if (bangkokMinute(now) >= this.#config.voidCutoffMinute) return { ok: false, error: placeholders.voidAfterCutoff };
    record.status = 'VOIDED';
    record.voidedAt = now;
    return { ok: true };
  }

  /** The customer pays: only a REQUESTED QR before its expiry, only its exact amount (a dynamic QR). */
  pay(record: QrRecord, satang?: bigint, loyaltyId?: string): PayOutcome {
    this.#refresh(record);
    if (record.status !== 'REQUESTED') {
      return { ok: false, status: 409, reason: `the QR is ${record.status}; a banking app refuses to pay it` };
    }
    if (satang !== undefined && satang !== record.satang) {
      return {
        ok: false,
        status: 409,
        reason: `the QR is for ${satangText(record.satang)} THB; a dynamic QR's amount cannot be changed`,
      };
    }
    record.status = 'PAID';
    record.paidAt = this.#clock.now();
    record.txnNo = this.#ids.digits('txn-no', 20);
    record.loyaltyId = loyaltyId ?? null;
    return { ok: true, record };
  }

  /** Manual settlement is refused at this time of day (EMSMSG). */
  settlementBlackedOut(): boolean {
    const minute = bangkokMinute(this.#clock.now());
    return minute >= SETTLEMENT_BLACKOUT.from || minute < SETTLEMENT_BLACKOUT.to;
  }

  /** Settles every unsettled PAID payment (of one merchant, or all): their voids are closed from now on. */
  settle(merchantId?: string): Settlement {
    const now = this.#clock.now();
    const settled = this.#all().filter(
      (r) => r.status === 'PAID' && r.settledAt === null && (merchantId === undefined || r.merchantId === merchantId),
    );
    for (const record of settled) record.settledAt = now;
    return {
      count: settled.length,
      satang: settled.reduce((sum, r) => sum + r.satang, 0n),
      partnerTxnUids: settled.map((r) => r.partnerTxnUid),
    };
  }

  records(): QrRecordView[] {
    return this.#all().map(recordView);
  }

  tokenCount(): number {
    return this.#tokens.size;
  }

  consumedCount(): number {
    return this.#consumed.size;
  }

  #all(): QrRecord[] {
    return [...this.#records.values()].map((r) => this.#refresh(r));
  }

  /** Applies what the clock says happened since the record was last read: expiry, automatic settlement. */
  #refresh(record: QrRecord): QrRecord {
    const now = this.#clock.now();
    if (record.status === 'REQUESTED' && now >= record.expiresAt) {
      record.status = 'EXPIRED';
      record.expiredAt = record.expiresAt;
    }
    const settleMinute = this.#config.autoSettleMinute;
    if (record.status === 'PAID' && record.settledAt === null && settleMinute !== null) {
      const paidAt = record.paidAt!;
      const day = bangkokDay(paidAt) + (bangkokMinute(paidAt) < settleMinute ? 0 : 1);
      const settlesAt = bangkokInstant(day, settleMinute);
      if (now >= settlesAt) record.settledAt = settlesAt;
    }
    return record;
  }
}

export function recordView(record: QrRecord): QrRecordView {
  const { satang, createdAt, expiresAt, paidAt, cancelledAt, expiredAt, voidedAt, settledAt, ...rest } = record;
  return {
    ...rest,
    amount: satangText(satang),
    settled: settledAt !== null,
    createdAt: bangkokIso(createdAt),
    expiresAt: bangkokIso(expiresAt),
    paidAt: iso(paidAt),
    cancelledAt: iso(cancelledAt),
    expiredAt: iso(expiredAt),
    voidedAt: iso(voidedAt),
    settledAt: iso(settledAt),
  };
}
