// The SCB QR30 connector (docs/connectors/scb.md): ProcessorConnector over SCB's bill-payment API.
// The QR is a Thai QR tag 30 for our biller id whose ref1 names the attempt: SCB creates it (v2:
// one use, an expiry at the bank) or, with SCB_QR=local, the gateway builds the same payload
// itself. SCB finds payments, not QRs: its inquiry lists what was paid on one ref1 on one Bangkok
// date, so an unpaid QR is "requested" until its expiry and "expired" after. SCB cannot cancel a
// QR nor refund a payment (capabilities cancel false, refunds 'none'); its confirmation is only
// a hint, checked by inquiry. Every answer is checked against what was asked (wire.ts).
//
// ref1 (15 characters) is derived from the attempt's seed with an HMAC under the API secret, so an
// instance that retries after a crash inquires about the same ref1, and racing instances agree.
import type {
  CancelOutcome,
  CreatePaymentRequest,
  NotificationHint,
  ProcessorCapabilities,
  ProcessorConnector,
  ProcessorPaymentStatus,
  ProcessorQr,
  RefundAccepted,
} from '../../app/ports/processor.ts';
import type { ScbSettings } from '../../config/scb.ts';
import { bangkokDate, bangkokDayStart, DAY_IN_MS } from '../../domain/bangkok-time.ts';
import { processorCannotRefund } from '../../domain/transfer-refund.ts';
import { formatMinor } from '../../domain/money.ts';
import { ProcessorMismatch, ProcessorUnavailable } from '../../domain/processor-errors.ts';
import { buildThaiQrPayload, thaiQrIsFor, verifyThaiQrPayload } from '../../domain/thai-qr.ts';
import { ScbClient, type ClientLogger, type RetryPolicy } from './client.ts';
import {
  CURRENCY,
  derivedRef1,
  describeAnswer,
  inquiryQuery,
  parseConfirmation,
  parseCreateAnswer,
  parseInquiryRecords,
  qrCreateBody,
  REF1,
  SCB_CODES,
  type PaidRecord,
} from './wire.ts';

export const SCB_CAPABILITIES: ProcessorCapabilities = {
  live: true,
  qr: 'processor',
  cancel: false,
  refunds: 'none',
  notifications: true,
};

/** Clocks differ: a QR is taken as payable this much past its expiry, and looked for that much longer. */
export const SCB_EXPIRY_SKEW_MS = 60_000;

export type ScbConnectorOptions = {
  now?: () => number;
  logger?: ClientLogger;
  retry?: Partial<RetryPolicy>;
};

export type ScbConnector = ProcessorConnector & {
  /** Drops the client's idle connections. */
  close(): void;
};

export function createScbConnector(settings: ScbSettings, options: ScbConnectorOptions = {}): ScbConnector {
  const now = options.now ?? Date.now;
  const client = new ScbClient({
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    apiSecret: settings.apiSecret,
    timeoutMs: settings.timeoutMs,
    now,
    ...(options.retry && { retry: options.retry }),
    ...(options.logger && { logger: options.logger }),
  });
  const { billerId, ref3Prefix } = settings;

  /** Our QR for the attempt, with no call: the same tag-30 payload SCB would build. */
  function localQr(request: CreatePaymentRequest): string {
    return buildThaiQrPayload({
      billerId,
      reference1: request.attemptId,
      reference2: request.reference1,
      amountMinor: request.amountMinor,
      terminalLabel: ref3Prefix,
    });
  }

  async function apiQr(request: CreatePaymentRequest, expiresAt: number): Promise<string> {
    const body = qrCreateBody({
      billerId,
      amountMinor: request.amountMinor,
      ref1: request.attemptId,
      ref2: request.reference1,
      ref3: ref3Prefix,
      expiresAt,
    });
    const answer = await client.send('create', { body });
    if (answer.code !== SCB_CODES.success)
      throw new ProcessorUnavailable(`SCB refused the QR: ${describeAnswer(answer)}`, false);
    return parseCreateAnswer(answer.data).qrRawData;
  }

  async function createPayment(request: CreatePaymentRequest): Promise<ProcessorQr> {
    if (request.currency !== CURRENCY) throw new Error(`SCB takes ${CURRENCY} only, not ${request.currency}`);
    if (!REF1.test(request.attemptId)) throw new Error(`not an SCB ref1 of ours: ${request.attemptId}`);
    const sentAt = now();
    // To the second, as SCB's expiryDate is written: never later than what SCB holds.
    const expiresAt = Math.floor((sentAt + settings.qrTtlMs) / 1000) * 1000;
    const payload = settings.qrMode === 'local' ? localQr(request) : await apiQr(request, expiresAt);
    // Nobody has seen this QR: SCB cannot cancel it, and nobody can pay what was never shown.
    const verified = verifyThaiQrPayload(payload);
    const problem = !verified.ok
      ? `does not verify: ${verified.errors.join('; ')}`
      : !thaiQrIsFor(verified, request.amountMinor)
        ? `is not for ${formatMinor(request.amountMinor, 2)} THB`
        : verified.billPayment['01'] !== billerId
          ? `pays biller ${verified.billPayment['01'] ?? 'none'}, not ours`
          : verified.billPayment['02'] !== request.attemptId
            ? `names ref1 ${verified.billPayment['02'] ?? 'none'}, not ${request.attemptId}`
            : null;
    if (problem !== null) throw new ProcessorMismatch(`SCB's QR ${problem}`);
    return { reference: request.attemptId, qrPayload: payload, expiresAt, accountName: null, issuer: 'SCB' };
  }

  /** The payments SCB lists for `ref1` on one Bangkok date; a missing record is no payment. */
  async function paidOn(ref1: string, date: string): Promise<PaidRecord[]> {
    const answer = await client.send('inquiry', { query: inquiryQuery(billerId, ref1, date) });
    if (answer.code === SCB_CODES.notFound) return [];
    if (answer.code !== SCB_CODES.success)
      throw new ProcessorUnavailable(`SCB refused the inquiry: ${describeAnswer(answer)}`, false);
    return parseInquiryRecords(answer.data, { billerId, ref1 });
  }

  /**
   * The Bangkok dates a payment of an attempt created at `createdAt` can carry: from that day to the
   * day its QR expires (with the skew), none in the future. A local QR has no expiry at the bank, so
   * today is asked too: a payment after our expiry is found, and goes to the needs-attention list.
   */
  function datesToAsk(createdAt: number, at: number): string[] {
    const last = Math.min(at, createdAt + settings.qrTtlMs + SCB_EXPIRY_SKEW_MS);
    const dates: string[] = [];
    for (let day = bangkokDayStart(bangkokDate(createdAt))!; day <= last; day += DAY_IN_MS)
      dates.push(bangkokDate(day));
    if (dates.length === 0) dates.push(bangkokDate(createdAt));
    if (settings.qrMode === 'local' && !dates.includes(bangkokDate(at))) dates.push(bangkokDate(at));
    return dates;
  }

  async function queryPayment(reference: string, createdAt: number): Promise<ProcessorPaymentStatus> {
    const at = now();
    const found = new Map<string, PaidRecord>();
    for (const date of datesToAsk(createdAt, at)) {
      for (const record of await paidOn(reference, date)) found.set(record.transactionId, record);
    }
    // The first payment is the one reported; any further one (a QR paid twice) needs a person.
    const [first, ...more] = [...found.values()].sort(
      (a, b) => (a.paidAt ?? Infinity) - (b.paidAt ?? Infinity) || a.transactionId.localeCompare(b.transactionId),
    );
    if (first === undefined) {
      const open = at <= createdAt + settings.qrTtlMs + SCB_EXPIRY_SKEW_MS;
      return {
        state: open ? 'requested' : 'expired',
        processorTxnNo: null,
        paidAmountMinor: null,
        currency: null,
        processorMerchantId: null,
        payer: null,
        alsoPaid: [],
      };
    }
    return {
      state: 'paid',
      processorTxnNo: first.transactionId,
      paidAmountMinor: first.amountMinor,
      currency: CURRENCY,
      processorMerchantId: first.billerId,
      payer: first.payer,
      alsoPaid: more.map((r) => ({ processorTxnNo: r.transactionId, paidAmountMinor: r.amountMinor })),
    };
  }

  async function cancelPayment(): Promise<CancelOutcome> {
    throw new Error('SCB cannot cancel a QR (capabilities.cancel is false): the payment closes on our side only');
  }

  async function refund(): Promise<RefundAccepted> {
    // Unreachable through the refund use case (refunds 'none' is refused before the connector is
    // asked), but the port's promise holds for any caller (docs/connectors/scb.md "Refunds").
    throw processorCannotRefund('SCB has no refund API for QR payments; nothing was refunded.');
  }

  function parseNotification(body: Buffer, contentType: string | undefined): NotificationHint {
    return parseConfirmation(body, contentType, { billerId });
  }

  return {
    name: 'scb',
    capabilities: SCB_CAPABILITIES,
    attemptReference: (kind, seed) => derivedRef1(kind === 'qr' ? 'Q' : 'V', settings.apiSecret, seed),
    createPayment,
    queryPayment,
    cancelPayment,
    refund,
    parseNotification,
    close: () => client.close(),
  };
}
