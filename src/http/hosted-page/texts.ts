// Everything the customer reads on the hosted page, in Thai and English. Kept in one table
// so both languages always have the same keys (the type below enforces it).
export type PageLang = 'th' | 'en';
export const PAGE_LANGS: readonly PageLang[] = ['th', 'en'];

export type PageTexts = {
  htmlTitle: string;
  payTo: string;
  amountLabel: string;
  scanTitle: string;
  scanHint: string;
  qrLabel: (amount: string, merchant: string) => string;
  details: string;
  reference: string;
  description: string;
  bank: string;
  account: string;
  expiresIn: string;
  expiresAt: (time: string) => string;
  expiredNow: string;
  sandboxTitle: string;
  sandboxHint: string;
  confirm: string;
  cancel: string;
  waiting: string;
  checkStatus: string;
  switchTo: string;
  languageNav: string;
  resultSuccessTitle: string;
  resultFailedTitle: string;
  /** A SUCCESS payment refunded in full, or in part (docs/hosted-page.md). */
  resultRefundedTitle: string;
  refundedFull: (amount: string) => string;
  refundedPartial: (refunded: string, amount: string) => string;
  refundedLabel: string;
  resultReason: Record<'DECLINED' | 'EXPIRED' | 'CANCELLED' | 'OTHER', string>;
  resultSuccessBody: string;
  returnToMerchant: string;
  redirecting: string;
  notFoundTitle: string;
  notFoundBody: string;
  forbiddenTitle: string;
  forbiddenBody: string;
  backToPayment: string;
  errorTitle: string;
  errorBody: string;
  securedBy: string;
  saveQr: string;
  sameDeviceHint: string;
  testBanner: string;
  /** Live mode: the bank that issued the QR, and that any Thai banking app pays it. */
  issuedBy: (issuer: string) => string;
  payeeAccount: string;
  anyBankApp: string;
  /** Live mode: the bank could not create (or close) the QR just now; the payment stays open. */
  bankUnavailableTitle: string;
  bankUnavailableBody: string;
  tryAgain: string;
};

const th: PageTexts = {
  htmlTitle: 'ชำระเงินด้วย Thai QR',
  payTo: 'ชำระเงินให้',
  amountLabel: 'ยอดชำระ',
  scanTitle: 'สแกนเพื่อชำระเงิน',
  scanHint: 'เปิดแอปธนาคารของคุณแล้วสแกน QR นี้ ยอดเงินจะถูกกรอกให้อัตโนมัติ',
  qrLabel: (amount, merchant) => `Thai QR สำหรับชำระ ${amount} ให้ ${merchant}`,
  details: 'รายละเอียดการชำระเงิน',
  reference: 'หมายเลขอ้างอิง',
  description: 'รายการ',
  bank: 'ธนาคารของผู้ชำระ',
  account: 'บัญชี',
  expiresIn: 'QR หมดอายุใน',
  expiresAt: (time) => `หมดอายุเวลา ${time}`,
  expiredNow: 'QR นี้หมดอายุแล้ว',
  sandboxTitle: 'โหมดทดสอบ (Sandbox)',
  sandboxHint: 'ไม่มีการตัดเงินจริง เลือกผลลัพธ์ของการชำระเงินนี้',
  confirm: 'ยืนยันการชำระเงิน',
  cancel: 'ยกเลิกการชำระเงิน',
  waiting: 'กำลังรอการยืนยันจากธนาคาร หน้านี้จะอัปเดตเองอัตโนมัติ',
  checkStatus: 'ตรวจสอบสถานะ',
  switchTo: 'English',
  languageNav: 'เลือกภาษา',
  resultSuccessTitle: 'ชำระเงินสำเร็จ',
  resultFailedTitle: 'การชำระเงินไม่สำเร็จ',
  resultRefundedTitle: 'คืนเงินแล้ว',
  refundedFull: (amount) => `ร้านค้าได้คืนเงินการชำระเงินนี้เต็มจำนวน ${amount} แล้ว`,
  refundedPartial: (refunded, amount) => `ร้านค้าได้คืนเงิน ${refunded} จากยอดชำระ ${amount} แล้ว`,
  refundedLabel: 'ยอดที่คืนแล้ว',
  resultReason: {
    DECLINED: 'ธนาคารของผู้ชำระปฏิเสธรายการนี้',
    EXPIRED: 'การชำระเงินไม่เสร็จสิ้นก่อนหมดเวลา',
    CANCELLED: 'คุณได้ยกเลิกการชำระเงินนี้',
    OTHER: 'ไม่สามารถดำเนินการชำระเงินได้',
  },
  resultSuccessBody: 'ร้านค้าได้รับการชำระเงินของคุณแล้ว',
  returnToMerchant: 'กลับไปที่ร้านค้า',
  redirecting: 'กำลังพาคุณกลับไปที่ร้านค้า…',
  notFoundTitle: 'ไม่พบหน้าชำระเงินนี้',
  notFoundBody: 'ลิงก์อาจไม่ถูกต้องหรือไม่สมบูรณ์ กรุณากลับไปที่ร้านค้าแล้วเริ่มชำระเงินใหม่',
  forbiddenTitle: 'ไม่สามารถดำเนินการตามคำขอได้',
  forbiddenBody: 'แบบฟอร์มนี้หมดอายุหรือไม่ได้ส่งมาจากหน้าชำระเงิน กรุณาเปิดหน้าชำระเงินอีกครั้งแล้วลองใหม่',
  backToPayment: 'กลับไปหน้าชำระเงิน',
  errorTitle: 'ระบบขัดข้องชั่วคราว',
  errorBody: 'ยังไม่มีการเปลี่ยนแปลงใด ๆ กับการชำระเงินของคุณ กรุณาลองใหม่อีกครั้งในอีกสักครู่',
  securedBy: 'ชำระเงินอย่างปลอดภัยผ่าน Thai QR Payment',
  saveQr: 'บันทึก QR',
  sameDeviceHint: 'ชำระเงินบนมือถือเครื่องนี้? บันทึก QR แล้วเปิดรูปนั้นในแอปธนาคารของคุณ',
  testBanner: 'โหมดทดสอบ (Sandbox) — ไม่มีการตัดเงินจริง',
  issuedBy: (issuer) => `QR นี้ออกโดย ${issuer}`,
  payeeAccount: 'ชื่อบัญชีผู้รับเงิน',
  anyBankApp: 'ชำระได้ด้วยแอปของทุกธนาคารในประเทศไทย',
  bankUnavailableTitle: 'ธนาคารยังไม่ตอบกลับในขณะนี้',
  bankUnavailableBody: 'รายการชำระเงินของคุณยังเปิดอยู่และยังไม่มีการเปลี่ยนแปลงใด ๆ กรุณาลองใหม่อีกครั้งในอีกสักครู่',
  tryAgain: 'ลองอีกครั้ง',
};

const en: PageTexts = {
  htmlTitle: 'Pay with Thai QR',
  payTo: 'Pay to',
  amountLabel: 'Amount',
  scanTitle: 'Scan to pay',
  scanHint: 'Open your banking app and scan this code. The amount is filled in for you.',
  qrLabel: (amount, merchant) => `Thai QR code to pay ${amount} to ${merchant}`,
  details: 'Payment details',
  reference: 'Reference',
  description: 'Description',
  bank: "Payer's bank",
  account: 'Account',
  expiresIn: 'Code expires in',
  expiresAt: (time) => `Expires at ${time}`,
  expiredNow: 'This code has expired',
  sandboxTitle: 'Sandbox mode',
  sandboxHint: 'No money moves. Choose how this test payment ends.',
  confirm: 'Confirm payment',
  cancel: 'Cancel payment',
  waiting: 'Waiting for your bank to confirm. This page updates by itself.',
  checkStatus: 'Check status',
  switchTo: 'ภาษาไทย',
  languageNav: 'Language',
  resultSuccessTitle: 'Payment successful',
  resultFailedTitle: 'Payment not successful',
  resultRefundedTitle: 'Payment refunded',
  refundedFull: (amount) => `The merchant refunded this payment in full (${amount}).`,
  refundedPartial: (refunded, amount) => `The merchant refunded ${refunded} of this ${amount} payment.`,
  refundedLabel: 'Refunded',
  resultReason: {
    DECLINED: "The payment was declined by the payer's bank.",
    EXPIRED: 'The payment was not completed before the code expired.',
    CANCELLED: 'You cancelled this payment.',
    OTHER: 'The payment could not be completed.',
  },
  resultSuccessBody: 'The merchant has received your payment.',
  returnToMerchant: 'Return to merchant',
  redirecting: 'Taking you back to the merchant…',
  notFoundTitle: 'Payment page not found',
  notFoundBody: 'The link may be wrong or incomplete. Please go back to the shop and start the payment again.',
  forbiddenTitle: 'This request could not be completed',
  forbiddenBody:
    'The form expired or did not come from the payment page. Please open the payment page again and retry.',
  backToPayment: 'Back to the payment page',
  errorTitle: 'Temporary problem',
  errorBody: 'Nothing has changed in your payment. Please try again in a moment.',
  securedBy: 'Secure payment with Thai QR Payment',
  saveQr: 'Save QR',
  sameDeviceHint: 'Paying on this phone? Save the QR and open it in your banking app.',
  testBanner: 'TEST (sandbox) — no real money moves',
  issuedBy: (issuer) => `QR issued by ${issuer}`,
  payeeAccount: 'Paid into',
  anyBankApp: 'Any Thai banking app can pay it.',
  bankUnavailableTitle: 'The bank is not answering right now',
  bankUnavailableBody: 'Your payment is still open and nothing has changed. Please try again in a moment.',
  tryAgain: 'Try again',
};

export const TEXTS: Record<PageLang, PageTexts> = { th, en };

export function isPageLang(value: unknown): value is PageLang {
  return value === 'th' || value === 'en';
}

/** `lang` query parameter if valid, else the transaction's `lang`, else Thai (the page's home market). */
export function pickLang(queryLang: unknown, transactionLang: string | null | undefined): PageLang {
  if (isPageLang(queryLang)) return queryLang;
  if (isPageLang(transactionLang)) return transactionLang;
  return 'th';
}
