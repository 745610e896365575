// Request bodies for the scenarios, shaped like the WooCommerce client's initiation
// (test/fixtures/woocommerce-thai-debit.json: float amount, extra fields, empty strings).
// Bodies are built by string concatenation around a trackid so the load generator spends
// as little of the shared CPU as possible.
export type Credentials = { merchantid: string; password: string };

const TRACKID_SLOT = '\u0000TRACKID\u0000';

function initiationTemplate(creds: Credentials, serverUrl: string): [string, string] {
  const body = {
    payment_method: { type: 'THAI_DEBIT' },
    trackid: TRACKID_SLOT,
    bill_currencycode: 'THB',
    bill_amount: 150.5,
    bill_country: 'TH',
    bill_customerip: '203.150.10.24',
    bill_email: 'somchai@example.co.th',
    returnUrl: 'https://shop.example.co.th/checkout/order-received/4711/?key=wc_order_AbC123xyz',
    serverUrl,
    payer_account_no: '1234567890',
    payer_account_name: 'สมชาย ใจดี',
    payer_bank_code: '014',
    productdesc: 'Order #4711 from Example Shop',
    returnUrl_on_failure:
      'https://shop.example.co.th/checkout/order-pay/4711/?pay_for_order=true&key=wc_order_AbC123xyz&k2p-status=failed',
    lang: 'en',
    bill_phone: '',
    bill_city: 'Bangkok',
    bill_state: '',
    bill_address: '99 Sukhumvit Rd',
    bill_zip: '10110',
    merchantid: creds.merchantid,
    password: creds.password,
  };
  const [before, after] = JSON.stringify(body).split(JSON.stringify(TRACKID_SLOT));
  return [before!, after!];
}

/**
 * The initiation body for one trackid (a JSON-safe string: letters, digits, '-'). Scenarios that
 * complete payments pass a loopback `serverUrl`, so notifications never leave the machine.
 */
export function initiationBodyFactory(
  creds: Credentials,
  serverUrl = 'https://shop.example.co.th/wc-api/key2pay_thai_debit',
): (trackid: string) => string {
  const [before, after] = initiationTemplate(creds, serverUrl);
  return (trackid) => `${before}"${trackid}"${after}`;
}

export function statusBody(creds: Credentials, trackid: string): string {
  return JSON.stringify({ merchantid: creds.merchantid, password: creds.password, trackid });
}

/** The trackid a successful initiation answer echoes, without parsing the whole body. */
export function echoedTrackid(responseBody: string): string | undefined {
  const key = '"trackid":"';
  const start = responseBody.indexOf(key);
  if (start < 0) return undefined;
  const end = responseBody.indexOf('"', start + key.length);
  return end < 0 ? undefined : responseBody.slice(start + key.length, end);
}
