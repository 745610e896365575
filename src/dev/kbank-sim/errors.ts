// The bank's business errors: errorCode and errorDesc "<text> (<CODE>)" as KBank's 2019 error
// reference lists them, and the placeholders the simulator answers where KBank's public material
// does not say which error it returns (docs/connectors/kbank-sim.md lists both). Placeholders whose
// internal code would have to be invented carry a SIM… code, so nobody mistakes them for KBank's.
export type BankError = { errorCode: string; errorDesc: string };

const CATALOGUE = {
  EMACF: ['account_error', 'Cannot credit to account.'],
  EMAC: ['account_error', 'Account is closed.'],
  EMA: ['authentication_error', 'Wrong partner key.'],
  EMPM: ['authentication_error', 'Miss match partner id and mid.'],
  EMBR: ['bad_request', 'Invalid JSON.'],
  EMDR: ['duplicate_request', 'This request is duplicated.'],
  EMG: ['general_error', 'System cannot process the request, please try again later.'],
  EMIDB: ['internal_error', 'Cannot connect to database.'],
  EMIU: ['internal_error', 'System unavailable.'],
  EMICC: ['invalid_currency_code', 'Currency code {value} is not allowed.'],
  EMITDNE: ['invalid_origPartnerTxnUid', 'origPartnerTxnUid does not exist.'],
  EMITA: ['invalid_txn_amount', 'Invalid Amount.'],
  EMITF: ['invalid_txn_amount', 'Amount must be an integer with two digits precision.'],
  EMIQR: ['invalid_qr_type', 'QR Type {value} is not allowed.'],
  EMIR: ['invalid_reference1', 'reference1 must not be empty.'],
  EMDNE: ['invalid_merchant', 'Merchant ID does not exist.'],
  EMMC: ['merchant_closed', 'Merchant is already closed.'],
  EMQRC: ['qr_cancelled', 'QR is cancelled.'],
  EMQRP: ['qr_paid', 'QR already paid.'],
  EMQRAE: ['qr_expired', 'QR already expired.'],
  EMQRE: ['qr_expired', 'QR has expired.'],
  EMSET: ['settlement_error', 'Transaction is already settled'],
  EMSMSG: ['settlement_error', 'Manual settlement is not allow between 22:00 - 02:30'],
  EMQRVOTCH: ['qr_void', 'Cannot void other channel.'],
} as const satisfies Record<string, readonly [string, string]>;

export type BankErrorCode = keyof typeof CATALOGUE;

/** A documented error; `value` fills the "{value}" of EMICC and EMIQR. */
export function bankError(code: BankErrorCode, value = ''): BankError {
  const [errorCode, text] = CATALOGUE[code];
  return { errorCode, errorDesc: `${text.replace('{value}', value)} (${code})` };
}

/** A field the simulator refuses for its form (length, type, charset); KBank publishes no code for it. */
export function invalidField(field: string): BankError {
  return { errorCode: 'bad_request', errorDesc: `Invalid ${field}. (EMBR)` };
}

/** The answers KBank's public material leaves open (§4.10, §4.14 item 4), configurable. */
export type PlaceholderErrors = {
  /** Cancel of a VOIDED QR (sandbox QR011). */
  cancelVoided: BankError;
  /** Void of a QR nobody paid (sandbox QR014). */
  voidUnpaid: BankError;
  /** Void of a payment already voided. */
  voidVoided: BankError;
  /** Void of a payment from an earlier Asia/Bangkok day, not yet settled (sandbox QR016). */
  voidOverTheDay: BankError;
  /** Void on the day of payment but at or after the void cut-off, not yet settled. */
  voidAfterCutoff: BankError;
};

export const DEFAULT_PLACEHOLDER_ERRORS: PlaceholderErrors = {
  cancelVoided: { errorCode: 'qr_void', errorDesc: 'QR is voided. (SIMQRV)' },
  voidUnpaid: bankError('EMITDNE'),
  voidVoided: { errorCode: 'qr_void', errorDesc: 'QR is voided. (SIMQRV)' },
  voidOverTheDay: { errorCode: 'general_error', errorDesc: 'Transaction is over the day. (EMG)' },
  voidAfterCutoff: { errorCode: 'general_error', errorDesc: 'Void is not allowed after the cut-off time. (EMG)' },
};
