// The rules of POST /transaction/s2s (docs/api.md "Initiation"): turns an untrusted JSON object
// into a normalised initiation or throws the first rule it breaks, in the documented field order
// (docs/api.md "Errors").
import { GatewayError, invalidField, missingField } from './errors.ts';
import { currencyExponent, formatMinor, numberToDecimalText, parseDecimal } from './money.ts';
import { normaliseBankCode } from './thai-banks.ts';
import { isIpAddress } from './ip-address.ts';
import { isUrlHost } from './url-host.ts';
import { normaliseCountryCode } from './country-codes.ts';
import { hasControlCharacters, NO_CONTROL_CHARACTERS } from './control-characters.ts';

export type InitiationLimits = {
  minAmountMinor: bigint;
  maxAmountMinor: bigint;
  /** Checks serverUrl against the outbound policy (docs/notifications.md); returns a reason when refused. */
  checkServerUrl: (url: string) => string | undefined;
};

export type NormalisedInitiation = {
  paymentMethod: 'THAI_DEBIT';
  trackid: string;
  currency: 'THB';
  amountMinor: bigint;
  billCountry: string;
  billCustomerIp: string;
  billEmail: string;
  returnUrl: string;
  /** Where a failed, cancelled or expired payment sends the customer; null: returnUrl. */
  returnUrlOnFailure: string | null;
  serverUrl: string;
  payerAccountNo: string;
  payerAccountName: string;
  payerBankCode: string;
  productdesc: string | null;
  lang: 'th' | 'en' | null;
};

const MAX_URL = 2048;
const MAX_EMAIL = 254;
const MAX_FREE_TEXT = 1024;
const TRACKID = /^[\x20-\x7e]{1,64}$/;
const ACCOUNT_NO = /^\d{6,20}$/;
// Absolute means scheme and authority spelled out: WHATWG parsing would also accept
// `http:example.com` or `https:\\host`, which merchants' own tooling reads differently, and
// silently drops tabs and newlines, which must never reach a stored URL or a Location header.
const ABSOLUTE_HTTP_URL = /^https?:\/\/[^\s\\\x00-\x1f\x7f]+$/i;
const EMAIL_LOCAL = /^[^\s@"(),:;<>[\\\]]{1,64}$/;
const DOMAIN_LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

type Body = Record<string, unknown>;

/**
 * A required value: absent, null or blank text is "missing" (MISSING_FIELD). `label` is the
 * name error_text uses, e.g. `payment_method.type` for the nested field.
 */
function present(body: Body, field: string, label = field): unknown {
  const value = body[field];
  if (value === undefined || value === null) throw missingField(label);
  if (typeof value === 'string' && value.trim() === '') throw missingField(label);
  return value;
}

function text(body: Body, field: string, label = field): string {
  const value = present(body, field, label);
  if (typeof value !== 'string') throw invalidField(label, 'it must be a string');
  if (hasControlCharacters(value)) throw invalidField(label, NO_CONTROL_CHARACTERS);
  return value;
}

export function validateInitiation(body: Body, limits: InitiationLimits): NormalisedInitiation {
  // The checks run in the documented field order, so the first broken rule is the one reported.
  checkPaymentMethod(body);
  const trackid = text(body, 'trackid');
  if (!TRACKID.test(trackid)) throw invalidField('trackid', 'it must be 1 to 64 printable ASCII characters');
  const currency = checkCurrency(body);
  const amountMinor = parseAmount(body, currency, limits);
  const billing = billingFields(body);
  const urls = urlFields(body, limits);
  const payer = payerFields(body);
  return {
    paymentMethod: 'THAI_DEBIT',
    trackid,
    currency: 'THB',
    amountMinor,
    ...billing,
    ...urls,
    ...payer,
    productdesc: optionalText(body, 'productdesc'),
    lang: body.lang === 'th' || body.lang === 'en' ? body.lang : null,
  };
}

function checkPaymentMethod(body: Body): void {
  const method = present(body, 'payment_method');
  if (typeof method !== 'object' || Array.isArray(method)) {
    throw invalidField('payment_method', 'it must be an object such as {"type":"THAI_DEBIT"}');
  }
  const methodType = text(method as Body, 'type', 'payment_method.type').trim();
  if (methodType !== 'THAI_DEBIT') {
    throw new GatewayError(
      'UNSUPPORTED_PAYMENT_METHOD',
      `The field 'payment_method.type' is invalid: only THAI_DEBIT is supported.`,
    );
  }
}

function checkCurrency(body: Body): 'THB' {
  // The API's rule: THB for THAI_DEBIT, anything else UNSUPPORTED_CURRENCY (a typo included).
  const currency = text(body, 'bill_currencycode').trim().toUpperCase();
  if (currency !== 'THB') {
    throw new GatewayError(
      'UNSUPPORTED_CURRENCY',
      `The field 'bill_currencycode' is invalid: THAI_DEBIT payments are in THB only.`,
    );
  }
  return currency;
}

function billingFields(body: Body): Pick<NormalisedInitiation, 'billCountry' | 'billCustomerIp' | 'billEmail'> {
  const country = normaliseCountryCode(text(body, 'bill_country'));
  if (!country) throw invalidField('bill_country', 'it must be an ISO 3166-1 alpha-2 country code such as TH');

  const ip = text(body, 'bill_customerip').trim();
  if (!isIpAddress(ip)) throw invalidField('bill_customerip', 'it must be an IPv4 or IPv6 address');

  const email = text(body, 'bill_email').trim();
  if (!isEmail(email))
    throw invalidField(
      'bill_email',
      'it must be an e-mail address with one @ and a dotted domain, at most 254 characters',
    );
  return { billCountry: country, billCustomerIp: ip, billEmail: email };
}

function urlFields(
  body: Body,
  limits: InitiationLimits,
): Pick<NormalisedInitiation, 'returnUrl' | 'returnUrlOnFailure' | 'serverUrl'> {
  const returnUrl = httpUrl(body, 'returnUrl');
  // Optional: absent, null or "" (real clients send it empty) mean "use returnUrl".
  const failureUrlInput = body.returnUrl_on_failure;
  const returnUrlOnFailure =
    failureUrlInput === undefined ||
    failureUrlInput === null ||
    (typeof failureUrlInput === 'string' && failureUrlInput.trim() === '')
      ? null
      : httpUrl(body, 'returnUrl_on_failure');
  const serverUrl = httpUrl(body, 'serverUrl');
  const refused = limits.checkServerUrl(serverUrl);
  if (refused) throw invalidField('serverUrl', `the outbound policy refuses it (${refused})`);
  return { returnUrl, returnUrlOnFailure, serverUrl };
}

function payerFields(body: Body): Pick<NormalisedInitiation, 'payerAccountNo' | 'payerAccountName' | 'payerBankCode'> {
  const accountNo = text(body, 'payer_account_no').trim();
  if (!ACCOUNT_NO.test(accountNo)) throw invalidField('payer_account_no', 'it must be 6 to 20 digits');

  const accountName = text(body, 'payer_account_name').trim();
  if ([...accountName].length > 140) throw invalidField('payer_account_name', 'it must be 1 to 140 characters');

  const bankInput = present(body, 'payer_bank_code');
  const bankCode = typeof bankInput === 'string' ? normaliseBankCode(bankInput) : undefined;
  if (!bankCode)
    throw invalidField(
      'payer_bank_code',
      'it must be a Thai bank code such as 014, or a bank name such as SCB or Kasikornbank',
    );
  return { payerAccountNo: accountNo, payerAccountName: accountName, payerBankCode: bankCode };
}

/**
 * An amount field read exactly (docs/api.md "Initiation": a JSON number by its shortest decimal form,
 * or a numeric string), with at most the currency's fraction digits. Shared by initiation and refunds.
 */
export function parseAmountField(body: Body, field: string, currency: string): bigint {
  const raw = present(body, field);
  let decimalText: string | null;
  if (typeof raw === 'number') decimalText = numberToDecimalText(raw);
  else if (typeof raw === 'string') decimalText = raw;
  else decimalText = null;
  const parsed = decimalText === null ? null : parseDecimal(decimalText);
  if (!parsed) {
    throw invalidField(
      field,
      'it must be a number or a numeric string like "150.50" ' +
        '(digits, optional decimal point, no sign, exponent or spaces)',
    );
  }
  const exponent = currencyExponent(currency);
  if (parsed.significantFractionDigits > exponent) {
    throw invalidField(field, `${currency} amounts have at most ${exponent} fraction digits`);
  }
  return parsed.minor;
}

function parseAmount(body: Body, currency: string, limits: InitiationLimits): bigint {
  const minor = parseAmountField(body, 'bill_amount', currency);
  const parsed = { minor };
  const exponent = currencyExponent(currency);
  if (parsed.minor < limits.minAmountMinor) {
    throw new GatewayError(
      'AMOUNT_TOO_LOW',
      `The field 'bill_amount' is too low: the minimum is ${formatMinor(limits.minAmountMinor, exponent)} ${currency}.`,
    );
  }
  if (parsed.minor > limits.maxAmountMinor) {
    throw new GatewayError(
      'AMOUNT_TOO_HIGH',
      `The field 'bill_amount' is too high: ` +
        `the maximum is ${formatMinor(limits.maxAmountMinor, exponent)} ${currency}.`,
    );
  }
  return parsed.minor;
}

function httpUrl(body: Body, field: string): string {
  const value = text(body, field).trim();
  if (value.length > MAX_URL) throw invalidField(field, `it must be at most ${MAX_URL} characters`);
  // The error is built only when thrown: an Error's stack trace costs microseconds per request.
  const notAbsolute = () =>
    invalidField(field, 'it must be an absolute http or https URL such as https://shop.example/return');
  if (!ABSOLUTE_HTTP_URL.test(value)) throw notAbsolute();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw notAbsolute();
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') throw notAbsolute();
  if (!isUrlHost(url.hostname)) {
    throw invalidField(field, 'its host must be a DNS name (letters, digits, hyphens and dots) or an IP address');
  }
  return value;
}

export function isEmail(value: string): boolean {
  if (value.length > MAX_EMAIL) return false;
  const at = value.indexOf('@');
  if (at <= 0 || at !== value.lastIndexOf('@')) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!EMAIL_LOCAL.test(local) || local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  const labels = domain.split('.');
  return labels.length >= 2 && labels.every((l) => DOMAIN_LABEL.test(l)) && /[A-Za-z]/.test(labels.at(-1) ?? '');
}

function optionalText(body: Body, field: string): string | null {
  const value = body[field];
  if (typeof value !== 'string') return null;
  if (hasControlCharacters(value)) throw invalidField(field, NO_CONTROL_CHARACTERS);
  const trimmed = value.trim();
  return trimmed === '' ? null : [...trimmed].slice(0, MAX_FREE_TEXT).join('');
}
