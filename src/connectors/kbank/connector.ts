// The KBank QR Payment connector (docs/connectors/kbank.md): ProcessorConnector over KBank's API.
// KBank builds the QR (a dynamic Thai QR that lives 10 minutes), cancels an unpaid one, voids a
// paid one in full on the day of payment, and sends a callback that is only a hint. Every answer
// is checked against what was asked (wire.ts) before anything is believed.
//
// Ids (partnerTxnUid, 15 characters): a QR's and a void's are derived from their seed with an
// HMAC under the partner secret, so an instance that retries after a crash, or a merchant who
// retries a refund, reaches the same request at KBank; an inquiry's and a cancel's are new each
// time, because they move no money and KBank refuses an id twice (EMDR) without replaying it.
import { readFileSync } from 'node:fs';
import type {
  CancelOutcome,
  CreatePaymentRequest,
  NotificationHint,
  ProcessorCapabilities,
  ProcessorConnector,
  ProcessorPaymentStatus,
  ProcessorQr,
  RefundAccepted,
  RefundRequest,
} from '../../app/ports/processor.ts';
import type { KbankSettings } from '../../config/kbank.ts';
import { bangkokDayNumber, bangkokMinute } from '../../domain/bangkok-time.ts';
import { GatewayError } from '../../domain/errors.ts';
import { formatMinor } from '../../domain/money.ts';
import { processorCannotRefund } from '../../domain/transfer-refund.ts';
import { ProcessorMismatch, ProcessorUnavailable } from '../../domain/processor-errors.ts';
import { thaiQrIsFor, verifyThaiQrPayload } from '../../domain/thai-qr.ts';
import { KbankClient, type ClientLogger, type RetryPolicy } from './client.ts';
import {
  CURRENCY,
  derivedTxnUid,
  describeBankError,
  parseCallback,
  parseCancelAnswer,
  parseInquiryAnswer,
  parseQrAnswer,
  parseVoidAnswer,
  qrRequestBody,
  randomTxnUid,
  referringBody,
  requestDt,
  stateOf,
  timeOfDay,
  TXN_UID,
  type BankError,
  type Inquiry,
  type KbankCall,
  type Partner,
} from './wire.ts';

export const KBANK_CAPABILITIES: ProcessorCapabilities = {
  live: true,
  qr: 'processor',
  cancel: true,
  refunds: 'void',
  notifications: true,
};

export type KbankConnectorOptions = {
  now?: () => number;
  logger?: ClientLogger;
  /** PEM texts; by default read from settings.tlsCertFile / tlsKeyFile. `ca`: trust this CA only (tests). */
  tls?: { cert?: string; key?: string; ca?: string };
  /** Test mode: the sandbox scenario of each call (the real sandbox answers by scenario, not by state). */
  envIdFor?: (call: KbankCall) => string;
  retry?: Partial<RetryPolicy>;
};

export type KbankConnector = ProcessorConnector & {
  /** Drops the client's idle connections. */
  close(): void;
};

/** How many voids one refund may send: the first, and one more after an answer that never came. */
const VOID_ATTEMPTS = 2;

export function createKbankConnector(settings: KbankSettings, options: KbankConnectorOptions = {}): KbankConnector {
  const now = options.now ?? Date.now;
  const client = new KbankClient({
    baseUrl: settings.baseUrl,
    consumerId: settings.consumerId,
    consumerSecret: settings.consumerSecret,
    tls: options.tls ?? tlsFiles(settings),
    testMode: settings.testMode,
    ...(options.envIdFor && { envIdFor: options.envIdFor }),
    timeoutMs: settings.timeoutMs,
    now,
    ...(options.retry && { retry: options.retry }),
    ...(options.logger && { logger: options.logger }),
  });
  const partner: Partner = {
    partnerId: settings.partnerId,
    partnerSecret: settings.partnerSecret,
    merchantId: settings.merchantId,
    terminalId: settings.terminalId,
  };
  const expected = (partnerTxnUid: string) => ({ partnerTxnUid, partnerId: partner.partnerId });
  const cutoff = timeOfDay(settings.voidCutoffMinute);

  /** The QR's state at KBank now; an unknown id is NOT_FOUND whichever way KBank says it. */
  async function inquire(reference: string): Promise<Inquiry> {
    const uid = randomTxnUid('I');
    const json = await client.send('inquiry', referringBody(partner, uid, reference, now()));
    const answer = parseInquiryAnswer(json, { ...expected(uid), merchantId: partner.merchantId });
    if (answer.ok) return answer.value;
    if (answer.error.errorCode === 'invalid_origPartnerTxnUid' || answer.error.code === 'EMITDNE')
      return { txnStatus: 'NOT_FOUND', txnNo: null, amountMinor: null, currency: null, merchantId: null };
    throw new ProcessorUnavailable(`KBank refused the inquiry: ${describeBankError(answer.error)}`, false);
  }

  /** Closes a QR nobody may pay (it did not verify); a failure here is left to the reconciler. */
  async function cancelQuietly(reference: string): Promise<void> {
    try {
      await connector.cancelPayment(reference);
    } catch (error) {
      options.logger?.warn({ reference, error: (error as Error).message }, 'KBank: cancelling a bad QR failed');
    }
  }

  async function createPayment(request: CreatePaymentRequest): Promise<ProcessorQr> {
    if (request.currency !== CURRENCY) throw new Error(`KBank takes ${CURRENCY} only, not ${request.currency}`);
    if (!TXN_UID.test(request.attemptId)) throw new Error(`not a KBank partnerTxnUid: ${request.attemptId}`);
    const sentAt = now();
    const body = qrRequestBody(
      partner,
      {
        partnerTxnUid: request.attemptId,
        amountMinor: request.amountMinor,
        reference1: request.reference1,
        reference2: request.merchantId,
      },
      sentAt,
    );
    const json = await client.send('request', body);
    let answer;
    try {
      answer = parseQrAnswer(json, expected(request.attemptId));
    } catch (error) {
      await cancelQuietly(request.attemptId);
      throw error;
    }
    if (!answer.ok) {
      // The id was used before: what that request did is settled by inquiry, never by sending it again.
      if (answer.error.errorCode === 'duplicate_request' || answer.error.code === 'EMDR')
        throw new ProcessorUnavailable(`KBank refused the QR as a repeated request (${request.attemptId})`, true);
      throw new ProcessorUnavailable(`KBank refused the QR: ${describeBankError(answer.error)}`, false);
    }
    const { qrCode, accountName } = answer.value;
    const verified = verifyThaiQrPayload(qrCode);
    if (!verified.ok || !thaiQrIsFor(verified, request.amountMinor)) {
      await cancelQuietly(request.attemptId);
      throw new ProcessorMismatch(
        verified.ok
          ? `KBank's QR is not for ${formatMinor(request.amountMinor, 2)} THB`
          : `KBank's QR does not verify: ${verified.errors.join('; ')}`,
      );
    }
    // Counted from before the request went out, so we never show a QR KBank has already closed.
    return {
      reference: request.attemptId,
      qrPayload: qrCode,
      expiresAt: sentAt + settings.qrTtlMs,
      accountName,
      issuer: 'KBank',
    };
  }

  // KBank finds a QR by its reference alone: the attempt's creation time is not needed.
  async function queryPayment(reference: string): Promise<ProcessorPaymentStatus> {
    const inquiry = await inquire(reference);
    const state = stateOf(inquiry.txnStatus);
    const paid = state === 'paid' || state === 'voided';
    return {
      state,
      processorTxnNo: inquiry.txnNo,
      paidAmountMinor: paid ? inquiry.amountMinor : null,
      currency: inquiry.currency,
      processorMerchantId: inquiry.merchantId,
      // KBank's inquiry does not say who paid: the payer check stays `unknown`.
      payer: null,
      // One QR, one payment: KBank closes a QR once it is paid.
      alsoPaid: [],
    };
  }

  async function cancelPayment(reference: string): Promise<CancelOutcome> {
    const uid = randomTxnUid('C');
    const json = await client.send('cancel', referringBody(partner, uid, reference, now()));
    const answer = parseCancelAnswer(json, expected(uid));
    if (answer.ok) return 'cancelled';
    const { errorCode, code } = answer.error;
    if (errorCode === 'qr_paid' || code === 'EMQRP') return 'paid';
    // Already closed another way: cancelled, expired, voided, or a QR KBank never created.
    if (
      ['qr_cancelled', 'qr_expired', 'qr_void', 'invalid_origPartnerTxnUid'].includes(errorCode ?? '') ||
      ['EMQRC', 'EMQRE', 'EMQRAE', 'EMITDNE'].includes(code ?? '')
    )
      return 'final';
    throw new ProcessorUnavailable(`KBank refused the cancel: ${describeBankError(answer.error)}`, false);
  }

  /**
   * A refusal the merchant sees: why KBank cannot void this payment, and the way that remains (a
   * bank transfer, recorded: domain/transfer-refund.ts; docs/connectors/kbank.md "Refunds").
   */
  const notAllowed = (why: string) =>
    processorCannotRefund(
      `KBank QR payments can only be refunded in full, on the day of payment before ${cutoff} (Asia/Bangkok): ${why}`,
    );
  /** KBank holds the payment in another state than ours: a person looks before any money moves. */
  const notPaidAtKbank = (status: string) =>
    new GatewayError(
      'REFUND_NOT_ALLOWED',
      `KBank reports this payment as ${status}, so there is nothing to void; nothing was refunded.`,
    );

  /** The gateway's own window rules, checked before KBank is asked (docs/connectors/kbank.md "Refunds"). */
  function checkVoidable(request: RefundRequest): string {
    if (request.paymentReference === null) throw notAllowed('this payment has no paid KBank QR to void.');
    if (request.currency !== CURRENCY) throw notAllowed(`KBank voids ${CURRENCY} payments only.`);
    if (request.refundedMinor > 0n)
      throw notAllowed('part of this payment was already refunded, and KBank voids only a whole payment.');
    if (request.amountMinor !== request.paymentAmountMinor)
      throw notAllowed(
        `a void returns the whole ${formatMinor(request.paymentAmountMinor, 2)} ${CURRENCY}, ` +
          `not ${formatMinor(request.amountMinor, 2)}.`,
      );
    if (request.paidAt === null) throw notAllowed('when this payment was paid is not known.');
    const at = now();
    if (bangkokDayNumber(request.paidAt) !== bangkokDayNumber(at))
      throw notAllowed(`this payment was paid on ${requestDt(request.paidAt).slice(0, 10)}, not today.`);
    if (bangkokMinute(at) >= settings.voidCutoffMinute) throw notAllowed(`it is past ${cutoff} today.`);
    return request.paymentReference;
  }

  /** A void KBank refused: what the merchant is told, or unavailable when KBank could not work on it. */
  function voidRefused(error: BankError): Error {
    const said = describeBankError(error);
    if (error.errorCode === 'settlement_error' || error.code === 'EMSET')
      return notAllowed(`KBank has already settled this payment (${said}).`);
    if (error.errorCode === 'general_error' && /over the day/i.test(error.errorDesc ?? ''))
      return notAllowed(`KBank says the payment is from an earlier day (${said}).`);
    if (error.errorCode === 'general_error' && /cut-?off/i.test(error.errorDesc ?? ''))
      return notAllowed(`KBank's own void cut-off has passed (${said}).`);
    if (/^qr_|^invalid_origPartnerTxnUid$/.test(error.errorCode ?? ''))
      return notAllowed(`KBank refused to void it (${said}).`);
    return new ProcessorUnavailable(`KBank refused the void (${said}); nothing was refunded`, false);
  }

  async function refund(request: RefundRequest): Promise<RefundAccepted> {
    const reference = checkVoidable(request);
    // Inquiry first: a void that went through before (this refund's earlier try) is not sent again.
    const before = await inquire(reference);
    if (before.txnStatus === 'VOIDED') return { reference: before.txnNo };
    if (before.txnStatus !== 'PAID') throw notPaidAtKbank(before.txnStatus);
    if (before.amountMinor !== request.paymentAmountMinor)
      throw new ProcessorMismatch(
        `KBank reports ${reference} paid ${before.amountMinor} (1/10,000) ${CURRENCY}, ` +
          `not the payment's ${request.paymentAmountMinor}`,
      );
    let unknown: ProcessorUnavailable | undefined;
    for (let attempt = 1; attempt <= VOID_ATTEMPTS; attempt++) {
      const voidId = derivedTxnUid('V', partner.partnerSecret, `${request.refundId}:${attempt}`);
      try {
        const json = await client.send('void', referringBody(partner, voidId, reference, now()));
        const answer = parseVoidAnswer(json, expected(voidId));
        if (answer.ok) return { reference: answer.value.txnNo ?? before.txnNo ?? voidId };
        // duplicate_request: this id was sent before (an earlier try of this refund); ask what it did.
        if (answer.error.errorCode !== 'duplicate_request' && answer.error.code !== 'EMDR')
          throw voidRefused(answer.error);
        unknown = undefined;
      } catch (error) {
        if (!(error instanceof ProcessorUnavailable && error.outcomeUnknown)) throw error;
        unknown = error;
      }
      const after = await inquire(reference);
      if (after.txnStatus === 'VOIDED') return { reference: after.txnNo ?? before.txnNo };
      if (after.txnStatus !== 'PAID') throw notPaidAtKbank(after.txnStatus);
    }
    throw new ProcessorUnavailable(
      'KBank did not confirm the void; nothing was refunded yet. Send the same refund again: it finds the void if ' +
        'KBank applied it, and never voids twice.',
      unknown !== undefined,
    );
  }

  function parseNotification(body: Buffer, contentType: string | undefined): NotificationHint {
    return parseCallback(body, contentType, { partnerId: partner.partnerId, merchantId: partner.merchantId });
  }

  const connector: KbankConnector = {
    name: 'kbank',
    capabilities: KBANK_CAPABILITIES,
    attemptReference: (kind, seed) => derivedTxnUid(kind === 'qr' ? 'Q' : 'V', partner.partnerSecret, seed),
    createPayment,
    queryPayment,
    cancelPayment,
    refund,
    parseNotification,
    close: () => client.close(),
  };
  return connector;
}

function tlsFiles(settings: KbankSettings): { cert: string; key: string } | undefined {
  if (settings.tlsCertFile === null || settings.tlsKeyFile === null) return undefined;
  return { cert: readFileSync(settings.tlsCertFile, 'utf8'), key: readFileSync(settings.tlsKeyFile, 'utf8') };
}
